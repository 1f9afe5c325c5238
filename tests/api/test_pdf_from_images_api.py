"""POST /v1/pdf/from-images through the API: a page per image, in order, a JPEG's bytes in the PDF unchanged."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pypdf
import pytest
from fastapi.testclient import TestClient
from PIL import Image

from tests.helpers import auth


def image(fmt: str, size: tuple[int, int], colour: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, fmt, **({"dpi": (72, 72)} if fmt == "JPEG" else {}))
    return out.getvalue()


def test_a_jpeg_and_a_png_become_two_pages_the_jpeg_byte_for_byte(api: TestClient, key: str, tmp_path: Path) -> None:
    jpeg = image("JPEG", (144, 72), (200, 20, 20))
    png = image("PNG", (96, 96), (20, 200, 20))
    parts = [("files", ("a.jpg", jpeg, "image/jpeg")), ("files", ("b.png", png, "image/png"))]
    response = api.post("/v1/pdf/from-images", files=parts, params={"pageSize": "auto"}, headers=auth(key))
    assert response.status_code == 200, response.text
    reader = pypdf.PdfReader(io.BytesIO(response.content))
    boxes = [(float(page.mediabox.width), float(page.mediabox.height)) for page in reader.pages]
    assert boxes == [(144.0, 72.0), (72.0, 72.0)]  # 72 dpi: a pixel a point; no DPI: 96
    if shutil.which("pdfimages") is None:
        pytest.skip("pdfimages not installed: make tools")
    path = tmp_path / "out.pdf"
    path.write_bytes(response.content)
    subprocess.run(["pdfimages", "-j", str(path), str(tmp_path / "img")], check=True)
    assert (tmp_path / "img-000.jpg").read_bytes() == jpeg


def test_a4_pages_and_a_file_that_is_not_an_image(api: TestClient, key: str) -> None:
    parts = [("files", ("a.png", image("PNG", (50, 100), (0, 0, 0)), "image/png"))]
    response = api.post("/v1/pdf/from-images", files=parts, params={"pageSize": "a4"}, headers=auth(key))
    page = pypdf.PdfReader(io.BytesIO(response.content)).pages[0]
    assert (round(float(page.mediabox.width)), round(float(page.mediabox.height))) == (595, 842)
    bad = api.post("/v1/pdf/from-images", files=[("files", ("x.png", b"not an image", "image/png"))], headers=auth(key))
    assert bad.status_code == 400 and bad.json()["error"] in ("invalid_input", "unsupported_format")
