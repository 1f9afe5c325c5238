"""What the documented commands write into the checkout is ignored by git and removed by `make clean`: the tarball
`npm pack` leaves in clients/node (its README's "Adding it to a project")."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE_PACKAGE = ROOT / "clients" / "node"


def packed_tarball() -> Path:
    """The file `npm pack` writes in clients/node: <name>-<version>.tgz."""
    package = json.loads((NODE_PACKAGE / "package.json").read_text(encoding="utf-8"))
    return NODE_PACKAGE / f"{package['name']}-{package['version']}.tgz"


def test_the_packed_node_tarball_is_ignored_by_git() -> None:
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        pytest.skip("git or the checkout's .git is missing")
    tarball = packed_tarball().relative_to(ROOT)
    ignored = subprocess.run([git, "check-ignore", "--no-index", str(tarball)], cwd=ROOT, capture_output=True)
    assert ignored.returncode == 0, f"{tarball} is not ignored"


def test_make_clean_removes_the_packed_node_tarball() -> None:
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is missing")
    planned = subprocess.run([make, "-n", "clean"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    removed = [word for line in planned.splitlines() if line.startswith("rm ") for word in line.split()]
    tarball = packed_tarball().relative_to(ROOT)
    assert any(tarball.match(pattern) for pattern in removed if pattern.endswith(".tgz")), planned
