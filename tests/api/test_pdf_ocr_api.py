"""POST /v1/pdf/ocr through the API: a scanned page becomes searchable (pdftotext finds its words), or its text."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from PIL import Image, ImageDraw, ImageFont

from fileapi.local.template import PROJECT_ROOT
from tests.helpers import post_bytes

FONT = PROJECT_ROOT / "shared" / "fileapi" / "fonts" / "DejaVuSans.ttf"


def scanned_pdf(words: str) -> bytes:
    """A PDF whose one page is a 200 dpi image of `words` (no text layer)."""
    page = Image.new("L", (1700, 600), 255)
    ImageDraw.Draw(page).text((100, 200), words, fill=0, font=ImageFont.truetype(str(FONT), 90))
    out = io.BytesIO()
    page.save(out, "PDF", resolution=200)
    return out.getvalue()


def test_a_scanned_page_becomes_searchable(api: TestClient, key: str, tmp_path: Path) -> None:
    response = post_bytes(api, key, "/v1/pdf/ocr", scanned_pdf("Quarterly invoice 42"))
    assert response.status_code == 200 and response.headers["content-type"] == "application/pdf", response.text
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext not installed: make tools")
    path = tmp_path / "out.pdf"
    path.write_bytes(response.content)
    text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout
    assert "Quarterly" in text and "invoice" in text


def test_output_text_answers_json(api: TestClient, key: str) -> None:
    response = post_bytes(api, key, "/v1/pdf/ocr", scanned_pdf("Hello scanner"), output="text")
    assert response.status_code == 200 and response.headers["content-type"] == "application/json"
    assert "Hello" in response.json()["text"] and len(response.json()["pages"]) == 1


def test_an_unknown_language_is_400(api: TestClient, key: str) -> None:
    response = post_bytes(api, key, "/v1/pdf/ocr", scanned_pdf("x"), languages="klingon")
    assert (response.status_code, response.json()["error"]) == (400, "invalid_input")
