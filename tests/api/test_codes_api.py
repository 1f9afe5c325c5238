"""The Codes family through the composed local API."""

from __future__ import annotations

import io

import pytest
import resvg_py
from fastapi.testclient import TestClient
from PIL import Image

from tests.helpers import auth


def test_qr_generate_png_and_svg_and_read_back(api: TestClient, key: str) -> None:
    png = api.post("/v1/qr/generate", json={"text": "hello ✓"}, headers=auth(key))
    assert (png.status_code, png.headers["content-type"]) == (200, "image/png")
    assert Image.open(io.BytesIO(png.content)).size == (29 * 9, 29 * 9)
    read = api.post("/v1/qr/read", content=png.content, headers=auth(key))
    assert read.json() == {"text": "hello ✓", "format": "qr_code"}
    svg = api.post("/v1/qr/generate", json={"text": "hello", "format": "svg", "size": 3}, headers=auth(key))
    assert svg.headers["content-type"] == "image/svg+xml"


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({}, "text:"),
        ({"text": "x", "size": 0}, "size:"),
        ({"text": "x", "margin": -1}, "margin:"),
        ({"text": "x", "errorCorrection": "X"}, "errorCorrection:"),
        ({"text": "x", "format": "gif"}, "format:"),
        ({"text": "x", "foreground": "black"}, "foreground must be a colour"),
    ],
)
def test_qr_generate_validation(api: TestClient, key: str, payload: dict[str, object], field: str) -> None:
    response = api.post("/v1/qr/generate", json=payload, headers=auth(key))
    assert response.status_code == 400
    assert field in response.json()["message"]


def test_qr_read_without_a_code_is_400(api: TestClient, key: str) -> None:
    out = io.BytesIO()
    Image.new("RGB", (50, 50), "white").save(out, "PNG")
    response = api.post("/v1/qr/read", content=out.getvalue(), headers=auth(key))
    assert response.status_code == 400
    assert response.json() == {
        "error": "invalid_input",
        "message": "no QR code found in the image",
        "docs_url": "/docs/errors#invalid_input",
    }


def test_barcode_generate_and_read(api: TestClient, key: str) -> None:
    svg = api.post("/v1/barcode/generate", json={"text": "03600029145", "format": "upca"}, headers=auth(key))
    assert (svg.status_code, svg.headers["content-type"]) == (200, "image/svg+xml")
    png = bytes(resvg_py.svg_to_bytes(svg_string=svg.text, background="#ffffff"))
    read = api.post("/v1/barcode/read", content=png, headers=auth(key))
    assert read.json() == {"codes": [{"text": "036000291452", "format": "upca"}]}


def test_barcode_generate_validation(api: TestClient, key: str) -> None:
    wrong = api.post("/v1/barcode/generate", json={"text": "4006381333932", "format": "ean13"}, headers=auth(key))
    assert wrong.status_code == 400
    assert "check digit" in wrong.json()["message"]
    unknown = api.post("/v1/barcode/generate", json={"text": "1", "format": "code93"}, headers=auth(key))
    assert unknown.status_code == 400
    assert unknown.json()["message"].startswith("format:")


def test_barcode_read_of_an_image_without_codes_is_an_empty_list(api: TestClient, key: str) -> None:
    out = io.BytesIO()
    Image.new("RGB", (50, 50), "white").save(out, "PNG")
    assert api.post("/v1/barcode/read", content=out.getvalue(), headers=auth(key)).json() == {"codes": []}
