"""The first `make run` installs the project's packages editable without setuptools' warning about folders of the
same name in the working directory: the Makefile's install line runs with EDITABLE_ENV, and that environment
keeps the warning off screen (pip's own, newer than the system's, shows the build backend's warnings)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")
WARNING = "Editable installation"


def editable_environment() -> dict[str, str]:
    found = re.search(r"^EDITABLE_ENV := (.*)$", MAKEFILE, re.MULTILINE)
    assert found is not None
    return dict(assignment.split("=", 1) for assignment in shlex.split(found.group(1)))


def install_editable(target: Path, environment: dict[str, str]) -> str:
    """What pip prints installing clients/python editable into a new environment at `target`."""
    venv.EnvBuilder(with_pip=False).create(target)
    pip = [sys.executable, "-m", "pip", "--python", str(target / "bin" / "python")]
    done = subprocess.run(
        [
            *pip,
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "-e",
            str(ROOT / "clients" / "python"),
        ],
        env={**{name: value for name, value in os.environ.items() if name != "PYTHONWARNINGS"}, **environment},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


def test_the_install_line_uses_the_quiet_environment() -> None:
    (line,) = [line for line in MAKEFILE.splitlines() if "-e . -e clients/python -e clients/mcp" in line]
    assert line.strip().startswith("$(EDITABLE_ENV) ")


def test_an_editable_install_prints_no_setuptools_warning(tmp_path: Path) -> None:
    assert WARNING in install_editable(tmp_path / "plain", {})  # what the first `make run` printed
    assert WARNING not in install_editable(tmp_path / "quiet", editable_environment())
