"""svg-to-png through the composed local API."""

from __future__ import annotations

import io

from fastapi.testclient import TestClient
from PIL import Image

from tests.helpers import auth

SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><rect width="10" height="10" fill="red"/></svg>'


def test_svg_to_png(api: TestClient, key: str) -> None:
    response = api.post(
        "/v1/render/svg-to-png", params={"scale": "3", "background": "white"}, content=SVG, headers=auth(key)
    )
    assert (response.status_code, response.headers["content-type"]) == (200, "image/png"), response.text
    rendered = Image.open(io.BytesIO(response.content))
    assert rendered.size == (60, 30)


def test_svg_to_png_bounds_and_errors(api: TestClient, key: str) -> None:
    for params in ({"scale": "0.05"}, {"scale": "11"}, {"width": "0"}):
        response = api.post("/v1/render/svg-to-png", params=params, content=SVG, headers=auth(key))
        assert response.status_code == 400
    broken = api.post("/v1/render/svg-to-png", content=b"<svg", headers=auth(key))
    assert (broken.status_code, broken.json()["error"]) == (400, "invalid_input")
    huge = api.post("/v1/render/svg-to-png", params={"width": "20000"}, content=SVG, headers=auth(key))
    assert (huge.status_code, huge.json()["error"]) == (413, "too_large")
