"""The PDF endpoints over ../shared/corpus/py-pdf-sample-files (skipped when absent)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fileapi.convert.pdf import extract_text, merge_pdfs, pdf_info, render_pages
from fileapi.errors import ApiError, InvalidInput
from tests.helpers import CORPUS, corpus_dir

pytestmark = pytest.mark.corpus

ROOT = CORPUS / "py-pdf-sample-files"
FILES = sorted(ROOT.rglob("*.pdf")) if ROOT.is_dir() else []
PASSWORD_PROTECTED = "libreoffice-writer-password.pdf"


def expected_pages() -> dict[str, int]:
    listing = json.loads((corpus_dir("py-pdf-sample-files") / "files.json").read_text())
    return {entry["path"]: entry["pages"] for entry in listing["data"]}


def test_corpus_is_present() -> None:
    corpus_dir("py-pdf-sample-files")
    assert len(FILES) >= 25


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_info_text_and_render_on_every_file(path: Path) -> None:
    data = path.read_bytes()
    if path.name == PASSWORD_PROTECTED:
        with pytest.raises(InvalidInput, match="password-protected"):
            pdf_info(data)
        return
    info = pdf_info(data)
    expected = expected_pages().get(str(path.relative_to(ROOT)))
    if expected is not None:
        assert info.pageCount == expected
    text = extract_text(data)
    assert len(text.pages) == info.pageCount
    try:
        render_pages(data, dpi=72)
    except ApiError as exc:
        assert exc.http_status < 500


def test_every_file_merges() -> None:
    documents = [path.read_bytes() for path in FILES if path.name != PASSWORD_PROTECTED]
    merged = merge_pdfs(documents)
    assert pdf_info(merged).pageCount == sum(pdf_info(document).pageCount for document in documents)


def test_the_corpus_forms_fill_and_flatten() -> None:
    from fileapi.convert.pdf_forms import fill_form

    latex = (corpus_dir("py-pdf-sample-files") / "010-pdflatex-forms" / "pdflatex-forms.pdf").read_bytes()
    flat = fill_form(latex, fields={"Name": "Ada Lovelace", "Check": True}, flatten=True)
    assert "Ada Lovelace" in extract_text(flat).text
    office = (ROOT / "012-libreoffice-form" / "libreoffice-form.pdf").read_bytes()
    flat = fill_form(office, fields={"Last Name": "Smith", "gdpr": True, "Nationality": "French"}, flatten=True)
    text = extract_text(flat).text
    assert "Smith" in text and "French" in text and "Bob" in text  # Bob: a value the form already held


def test_every_file_compresses_without_growing() -> None:
    from fileapi.convert.pdf_edit import compress_pdf

    for path in FILES:
        if path.name == PASSWORD_PROTECTED:
            continue
        result = compress_pdf(path.read_bytes(), strip_metadata=True)
        assert result.compressedSize <= result.originalSize
