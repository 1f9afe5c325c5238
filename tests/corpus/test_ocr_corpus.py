"""OCR over the corpus: pages rendered from its text PDFs with scanner noise read back through pdftotext of
the searchable PDF, and every sample PDF gives an answer or an ApiError (never a library's exception)."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from bench.ocr_pages import PAGES, normalised, scanned
from fileapi.convert.ocr_options import OcrOutput
from fileapi.convert.ocr_pdf import pdf_ocr
from fileapi.convert.pdf import PdfText, extract_text
from fileapi.errors import ApiError
from tests.helpers import corpus_dir, require_tool

pytestmark = pytest.mark.corpus


def pdftotext(path: Path, *pages: str) -> str:
    argv = [require_tool("pdftotext"), "-enc", "UTF-8", *pages, str(path), "-"]
    return subprocess.run(argv, capture_output=True, check=True).stdout.decode()


@pytest.mark.parametrize("dpi", [150, 300])
def test_scanned_corpus_page_reads_back_with_pdftotext(tmp_path: Path, dpi: int) -> None:
    import pypdfium2 as pdfium

    name, number = PAGES[0]  # LibreOffice Writer, 100 words of Lorem ipsum
    original = corpus_dir("py-pdf-sample-files") / name
    truth = set(normalised(pdftotext(original, "-f", str(number), "-l", str(number))).split())
    page = pdfium.PdfDocument(original)[number - 1].render(scale=dpi / 72).to_pil()
    scan = io.BytesIO()
    Image.open(io.BytesIO(scanned(page, seed=1))).save(scan, "PDF", resolution=dpi)
    searchable = pdf_ocr(scan.getvalue())
    assert isinstance(searchable, bytes)
    path = tmp_path / "searchable.pdf"
    path.write_bytes(searchable)
    found = set(normalised(pdftotext(path)).split())
    assert len(truth & found) >= 0.95 * len(truth), sorted(truth - found)


def test_every_sample_pdf_gives_an_answer_or_an_api_error() -> None:
    root = corpus_dir("py-pdf-sample-files")
    answered = 0
    for path in sorted(root.rglob("*.pdf")):
        data = path.read_bytes()
        try:
            result = pdf_ocr(data, output=OcrOutput.TEXT)
        except ApiError as error:
            assert 400 <= error.http_status < 500, (path.name, error.message)
            continue
        assert isinstance(result, PdfText)
        own = extract_text(data).pages
        assert len(result.pages) == len(own)
        for text, vector in zip(result.pages, own, strict=True):
            if vector.strip():
                assert text == vector, path.name  # a page with text is left alone
        answered += 1
    assert answered >= 25  # of 38: the password-protected and deliberately broken ones are 400
