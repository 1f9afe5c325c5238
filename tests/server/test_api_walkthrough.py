"""docs/api.md's curl walkthrough (Large files, "With curl") as a user pastes it: in a fresh clone, `fileapi run` on a
port other than 3000 (FILEAPI_PORT), the block run as it is in one bash with `PDF` pointing at a 30-page PDF: the
upload, the page count, the split in two halves, each part fetched and its SHA-256 checked, and the inline
operation."""

from __future__ import annotations

import io
import re
import subprocess
from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter

from fileapi.local.template import PROJECT_ROOT
from tests.helpers import require_tool
from tests.server.test_readme_commands import clone, running

pytestmark = pytest.mark.server
API_DOC = PROJECT_ROOT / "docs" / "api.md"
__all__ = ["clone", "running"]  # the fixtures of the README's test: a fresh clone, `fileapi run` in it


def walkthrough() -> str:
    """The ```sh block of docs/api.md's "With curl" section."""
    section = API_DOC.read_text(encoding="utf-8").split("\n### With curl\n", 1)[1].split("\n### ", 1)[0]
    (block,) = re.findall(r"```sh\n(.*?)```", section, re.DOTALL)
    return str(block)


def pdf_of_pages(count: int) -> bytes:
    """A PDF of `count` pages, page n of width 100 + n points (so each part's pages can be told apart)."""
    writer = PdfWriter()
    for number in range(1, count + 1):
        writer.add_blank_page(width=100 + number, height=100)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def test_the_walkthrough_runs_as_pasted_on_another_port_with_any_pdf(clone: Path, running: dict[str, str]) -> None:
    for tool in ("curl", "jq", "sha256sum"):
        require_tool(tool)
    script = walkthrough().replace("PDF=scan.pdf", "PDF=thirty-pages.pdf", 1)
    (clone / "thirty-pages.pdf").write_bytes(pdf_of_pages(30))
    done = subprocess.run(
        [require_tool("bash"), "-c", "set -euo pipefail\n" + script],
        cwd=clone,
        env=running,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    # the upload's 204, both parts' checksums, the inline operation's 202
    assert done.stdout.startswith("204\n"), done.stdout
    assert re.findall(r"^(\S+): OK$", done.stdout, re.MULTILINE) == ["pdfs-1.pdf", "pdfs-2.pdf"], done.stdout
    assert re.search(r"^HTTP/1.1 202 ", done.stdout, re.MULTILINE), done.stdout
    widths = [
        [round(float(page.mediabox.width)) for page in PdfReader(clone / name).pages]
        for name in ("pdfs-1.pdf", "pdfs-2.pdf")
    ]
    assert widths == [list(range(101, 116)), list(range(116, 131))]
