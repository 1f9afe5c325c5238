"""The corpus's PDFs with active content (JavaScript, actions on opening, attachments), through each of the six
rewriting converters: nothing active is left, as qpdf --json reads the result."""

from __future__ import annotations

from pathlib import Path

import pytest

from fileapi.convert.pdf import rotate_pdf
from fileapi.convert.pdf_edit import compress_pdf, watermark_pdf
from fileapi.convert.pdf_forms import flatten_form
from fileapi.errors import ApiError
from tests.active_content import active_content
from tests.helpers import corpus_dir

pytestmark = [pytest.mark.corpus, pytest.mark.tools]

CONVERTERS = {
    "flatten": lambda data: flatten_form(data),
    "compress": lambda data: compress_pdf(data).data,
    "rotate": lambda data: rotate_pdf(data, degrees=90),
    "watermark": lambda data: watermark_pdf(data, text="DRAFT"),
}
# Sets whose files carry JavaScript, actions on opening or attachments (SOURCES.md).
SETS = ("py-pdf-sample-files", "qpdf")
MAX_FILES = 40  # the first by name that have active content: every kind the corpus holds is among them


def readable_active_content(path: Path) -> list[str]:
    """What qpdf finds in the file; nothing for a file it cannot open without a password."""
    try:
        return active_content(path.read_bytes())
    except (AssertionError, ValueError):  # qpdf cannot open it, or its JSON of a damaged file is not JSON
        return []


def active_files() -> list[Path]:
    found: list[Path] = []
    for name in SETS:
        for path in sorted(corpus_dir(name).rglob("*.pdf")):
            if path.stat().st_size <= 2_000_000 and readable_active_content(path):
                found.append(path)
    javascript = [path for path in found if "/JavaScript" in readable_active_content(path)]
    return sorted({*javascript, *found[:MAX_FILES]})


@pytest.fixture(scope="module")
def files() -> list[Path]:
    chosen = active_files()
    assert any("/JS" in readable_active_content(path) for path in chosen), "no JavaScript PDF in the corpus"
    return chosen


@pytest.mark.parametrize("name", sorted(CONVERTERS))
def test_corpus_pdfs_lose_their_active_content(files: list[Path], name: str) -> None:
    left: dict[str, list[str]] = {}
    converted = 0
    for path in files:
        try:
            result = CONVERTERS[name](path.read_bytes())
        except ApiError:
            continue  # a file this converter refuses (damaged, encrypted): nothing is written
        converted += 1
        remaining = active_content(result)
        if remaining:
            left[path.name] = remaining
    assert left == {}
    assert converted >= len(files) // 2
