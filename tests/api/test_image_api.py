"""The Image family through the composed local API: formats, parameters, errors."""

from __future__ import annotations

import io

import pytest
from fastapi.testclient import TestClient
from PIL import Image

from fileapi.convert.image_io import load_pillow
from fileapi.metering.plans import CONTRACT_PLANS
from tests.helpers import auth, photo_png


def png(width: int = 40, height: int = 30) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (10, 200, 30)).save(out, "PNG")
    return out.getvalue()


@pytest.mark.parametrize("to", ["jpeg", "png", "webp", "avif"])
def test_convert_content_type_matches_the_bytes(api: TestClient, key: str, to: str) -> None:
    response = api.post("/v1/image/convert", params={"to": to}, content=png(), headers=auth(key))
    assert response.status_code == 200
    assert response.headers["content-type"] == f"image/{to}"
    assert Image.open(io.BytesIO(response.content)).format == to.upper()
    assert int(response.headers["X-Quota-Remaining"]) == CONTRACT_PLANS["business"].quota_monthly - 1  # a new key


def test_convert_needs_to_and_refuses_unknown_formats(api: TestClient, key: str) -> None:
    missing = api.post("/v1/image/convert", content=png(), headers=auth(key))
    assert (missing.status_code, missing.json()["error"]) == (400, "invalid_input")
    unknown = api.post("/v1/image/convert", params={"to": "gif"}, content=png(), headers=auth(key))
    assert unknown.status_code == 400
    assert unknown.json()["message"].startswith("to:")


def test_octet_stream_input_is_detected(api: TestClient, key: str) -> None:
    response = api.post(
        "/v1/image/rotate",
        params={"degrees": "270"},
        content=png(),
        headers={**auth(key), "Content-Type": "application/octet-stream"},
    )
    assert Image.open(io.BytesIO(response.content)).size == (30, 40)


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/v1/image/convert", {"to": "png", "quality": "0"}),
        ("/v1/image/resize", {"width": "0"}),
        ("/v1/image/compress", {}),
        ("/v1/image/compress", {"quality": "101"}),
        ("/v1/image/rotate", {"degrees": "45"}),
        ("/v1/image/flip", {"direction": "diagonal"}),
        ("/v1/image/crop", {"x": "0", "y": "0", "width": "100", "height": "1"}),
        ("/v1/image/resize", {}),
    ],
)
def test_bad_parameters_are_400(api: TestClient, key: str, path: str, params: dict[str, str]) -> None:
    response = api.post(path, params=params, content=png(), headers=auth(key))
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_input"


def test_not_an_image_is_unsupported_format(api: TestClient, key: str) -> None:
    response = api.post("/v1/image/convert", params={"to": "png"}, content=b"%PDF-1.4 hello", headers=auth(key))
    assert (response.status_code, response.json()["error"]) == (400, "unsupported_format")


def test_corrupt_image_is_invalid_input(api: TestClient, key: str) -> None:
    response = api.post("/v1/image/convert", params={"to": "png"}, content=png()[:60], headers=auth(key))
    assert (response.status_code, response.json()["error"]) == (400, "invalid_input")


def test_read_metadata_and_favicon_set_are_json(api: TestClient, key: str) -> None:
    meta = api.post("/v1/image/read-metadata", content=png(), headers=auth(key)).json()
    assert (meta["width"], meta["height"], meta["exif"]) == (40, 30, {})
    favicons = api.post("/v1/image/favicon-set", content=png(), headers=auth(key)).json()
    assert len(favicons["pngs"]) == 6


def test_strip_metadata_of_gif_is_unsupported(api: TestClient, key: str) -> None:
    out = io.BytesIO()
    Image.new("P", (4, 4)).save(out, "GIF")
    response = api.post("/v1/image/strip-metadata", content=out.getvalue(), headers=auth(key))
    assert (response.status_code, response.json()["error"]) == (400, "unsupported_format")


def test_target_score_answers_say_what_was_chosen(api: TestClient, key: str) -> None:
    response = api.post(
        "/v1/image/convert", params={"to": "webp", "targetScore": "80"}, content=photo_png(), headers=auth(key)
    )
    assert response.status_code == 200
    assert float(response.headers["X-Quality-Score"]) >= 80
    assert 1 <= int(response.headers["X-Encoder-Quality"]) <= 100


@pytest.mark.parametrize(
    "params",
    [
        {"to": "jpeg", "targetScore": "20"},
        {"to": "png", "targetScore": "80"},
        {"to": "jpeg", "quality": "80", "targetScore": "80"},
    ],
)
def test_bad_target_scores_are_400(api: TestClient, key: str, params: dict[str, str]) -> None:
    response = api.post("/v1/image/convert", params=params, content=photo_png(), headers=auth(key))
    assert (response.status_code, response.json()["error"]) == (400, "invalid_input")


def test_a_jpeg_recompressed_to_jpeg_xl(api: TestClient, key: str) -> None:
    out = io.BytesIO()
    Image.open(io.BytesIO(photo_png())).save(out, "JPEG", quality=90)
    response = api.post(
        "/v1/image/convert", params={"to": "jxl", "jpegTranscode": "true"}, content=out.getvalue(), headers=auth(key)
    )
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/jxl"
    assert len(response.content) < len(out.getvalue())
    load_pillow()  # registers the JPEG XL plugin in this process (the conversion ran in a worker)
    assert Image.open(io.BytesIO(response.content)).size == (300, 260)


@pytest.mark.parametrize("path", ["/v1/image/resize", "/v1/image/read-metadata"])
def test_a_jpeg_xl_body_is_taken_as_an_image(api: TestClient, key: str, path: str) -> None:
    load_pillow()
    out = io.BytesIO()
    Image.open(io.BytesIO(photo_png())).save(out, "JXL", quality=90)
    params = {"width": "150"} if path.endswith("resize") else {}
    headers = {**auth(key), "Content-Type": "image/jxl"}
    response = api.post(path, params=params, content=out.getvalue(), headers=headers)
    assert response.status_code == 200, response.text
    if path.endswith("resize"):  # without a format, JPEG XL stays JPEG XL
        assert response.headers["content-type"] == "image/jxl"
        assert Image.open(io.BytesIO(response.content)).size == (150, 130)
    else:
        assert (response.json()["width"], response.json()["height"]) == (300, 260)
