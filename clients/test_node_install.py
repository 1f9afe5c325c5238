"""The Node README's "Adding it to a project": `npm pack` in clients/node, then `npm install` of the tarball in
another project, which imports and type-checks the package (offline: it has no runtime dependencies)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

NODE_PACKAGE = Path(__file__).resolve().parent / "node"
NPM, NODE = shutil.which("npm"), shutil.which("node")
README = (NODE_PACKAGE / "README.md").read_text(encoding="utf-8")
USES_IT = """\
import { FileApi, InvalidInput } from "fileapi-client";

const api = new FileApi({ apiKey: "sk_live_x", baseUrl: "http://127.0.0.1:9" });
const call: (options: { text: string }) => Promise<unknown> = (options) => api.qrGenerate(options);
console.log(typeof call, InvalidInput.name);
"""


def _npm(*args: str, cwd: Path) -> str:
    done = subprocess.run([NPM or "npm", *args], cwd=cwd, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, f"npm {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_the_readme_installs_the_packed_tarball_into_a_project(tmp_path: Path) -> None:
    if NPM is None or NODE is None or not (NODE_PACKAGE / "node_modules" / "typescript").is_dir():
        pytest.skip("npm, node or clients/node/node_modules is missing: run `make node`")
    version = json.loads((NODE_PACKAGE / "package.json").read_text(encoding="utf-8"))["version"]
    tarball = f"fileapi-client-{version}.tgz"
    assert "cd clients/node && npm pack " in README
    assert f"npm install /path/to/fileapi/clients/node/{tarball}\n" in README
    # packed from a copy: its prepack rebuilds dist/, which other tests of this run read in clients/node
    source = tmp_path / "node"
    shutil.copytree(NODE_PACKAGE, source, ignore=shutil.ignore_patterns("node_modules", "dist", "*.tgz"))
    (source / "node_modules").symlink_to(NODE_PACKAGE / "node_modules")
    assert _npm("pack", "--silent", cwd=source).strip() == tarball
    project = tmp_path / "project"
    project.mkdir()
    (project / "package.json").write_text('{"name": "project", "type": "module", "private": true}\n')
    _npm("install", "--offline", "--no-audit", "--no-fund", str(source / tarball), cwd=project)
    installed = project / "node_modules" / "fileapi-client"
    assert sorted(path.name for path in installed.iterdir()) == ["LICENSE", "README.md", "dist", "package.json"]
    (project / "main.ts").write_text(USES_IT)
    tsc = NODE_PACKAGE / "node_modules" / "typescript" / "bin" / "tsc"
    checked = subprocess.run(
        [NODE, str(tsc), "--strict", "--module", "NodeNext", "--target", "ES2022", "--skipLibCheck", "main.ts"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    ran = subprocess.run([NODE, "main.js"], cwd=project, capture_output=True, text=True, timeout=60)
    assert ran.stdout == "function InvalidInput\n", ran.stderr
