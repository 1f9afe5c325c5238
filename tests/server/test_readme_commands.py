"""The README's first requests as a newcomer pastes them: in a fresh clone (`git clone` of this checkout, with
this .venv), `fileapi run` on a port other than 3000 chosen with FILEAPI_PORT, then every ```sh block of the
README's "First requests" run as it is, in one bash, with FILEAPI_PORT exported as the README says. curl
is wrapped to fail on an HTTP error and to mark the end of each answer; every answer is then checked."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image
from pypdf import PdfReader

from fileapi.local import dynamo
from fileapi.local.template import PROJECT_ROOT
from tests.helpers import require_tool

pytestmark = pytest.mark.server
README = PROJECT_ROOT / "README.md"
# Each curl of the README as pasted, but failing on an HTTP error (set -e stops the script there) and
# ending each answer with a line of its status, so the answers can be told apart.
HARNESS = """set -euo pipefail
curl() { command curl --fail-with-body -w '\\n=== %{http_code}\\n' "$@"; }
"""
SAMPLES = ["photo.jpg", "report.pdf", "a.pdf", "b.pdf", "logo.svg"]


def first_requests() -> list[str]:
    """The ```sh blocks of the README's "First requests" section, in order."""
    section = README.read_text(encoding="utf-8").split("\n## First requests\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)```", section, re.DOTALL)


@pytest.fixture()
def clone(tmp_path: Path) -> Path:
    """A fresh clone of this checkout's commit, using this .venv (what `make run` would have installed)."""
    if not (PROJECT_ROOT / ".git").exists():
        pytest.skip(f"{PROJECT_ROOT} is not a git checkout: nothing to clone")
    folder = tmp_path / "clone"
    subprocess.run([require_tool("git"), "clone", "--quiet", str(PROJECT_ROOT), str(folder)], check=True, timeout=120)
    (folder / ".venv").symlink_to(PROJECT_ROOT / ".venv")
    (folder / ".git" / "info" / "exclude").write_text(".venv\n")  # .gitignore's `.venv/` matches no symlink
    return folder


@pytest.fixture()
def running(clone: Path) -> Iterator[dict[str, str]]:
    """`fileapi run` in the clone on a free port other than 3000; the environment of the shell that pastes."""
    port = dynamo.free_port()
    while port == 3000:
        port = dynamo.free_port()
    env = {name: value for name, value in os.environ.items() if not name.startswith(("FILEAPI_", "AWS_"))}
    env.update(FILEAPI_PORT=str(port), POWERTOOLS_LOG_LEVEL="WARNING")
    process = subprocess.Popen(
        [str(clone / ".venv" / "bin" / "fileapi"), "run"],
        cwd=clone,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert process.stdout is not None
        banner = process.stdout.readline()  # printed once the port answers
        assert banner.startswith(f"File API on http://127.0.0.1:{port} "), banner
        yield env
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()


def test_the_readme_names_a_sample_file_for_every_file_it_sends() -> None:
    sent = set(re.findall(r"=@([\w.]+)|--data-binary @([\w.]+)", "".join(first_requests())))
    names = {name for pair in sent for name in pair if name} - {"qr.png"}  # qr.png: written by the step before
    assert names == set(SAMPLES)
    for name in SAMPLES:
        assert (PROJECT_ROOT / "examples" / name).stat().st_size < 20_000, name  # small


def test_the_readme_first_requests_run_as_pasted_on_another_port(clone: Path, running: dict[str, str]) -> None:
    require_tool("curl")
    script = HARNESS + "\n".join(first_requests())
    done = subprocess.run(
        [require_tool("bash"), "-c", script], cwd=clone, env=running, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    parts = re.split(r"\n=== (\d{3})\n", done.stdout)
    answers = list(zip(parts[0::2], (int(status) for status in parts[1::2]), strict=False))
    assert [status for _, status in answers] == [200] * 12, done.stdout
    bodies = [body for body, _ in answers]
    examples = clone / "examples"

    encoded, usage, formatted, resized, info, merged, qr, read, rendered, detected, counted, colour = bodies
    assert encoded == "aGVsbG8="
    assert isinstance(json.loads(usage), dict)
    assert json.loads(formatted) == {"b": 1, "a": [1.5, True]}
    assert "1.50" in formatted and formatted.index('"b"') < formatted.index('"a"')  # the text kept
    assert resized == merged == qr == rendered == ""  # written to files
    with Image.open(examples / "small.webp") as small:
        assert (small.format, small.size) == ("WEBP", (800, 533))  # 1200x800 at width 800
    assert json.loads(info)["pageCount"] == 2
    pages = PdfReader(io.BytesIO((examples / "merged.pdf").read_bytes())).pages
    assert [page.extract_text().strip() for page in pages] == ["Document A", "Document B"]
    assert [code["text"] for code in json.loads(read)["codes"]] == ["https://example.com"]
    with Image.open(examples / "logo.png") as logo:
        assert (logo.format, logo.size) == ("PNG", (320, 160))  # logo.svg is 160x80, at scale 2
    assert json.loads(detected)["mime"] == "image/jpeg"
    assert json.loads(counted)["words"] == 5
    assert json.loads(colour)["hex"] == "#663399"
    written = sorted(path.name for path in examples.iterdir() if path.name not in SAMPLES)
    assert written == [".gitignore", "logo.png", "make_samples.py", "merged.pdf", "qr.png", "small.webp"]
    status = subprocess.run([require_tool("git"), "status", "--porcelain"], cwd=clone, capture_output=True, check=True)
    assert status.stdout == b""  # what the commands write is ignored by git
