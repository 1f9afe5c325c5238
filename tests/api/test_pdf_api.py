"""The PDF endpoints built so far, through the composed local API."""

from __future__ import annotations

import base64
import io
from dataclasses import replace

import pikepdf
import pytest
from fastapi.testclient import TestClient

from tests.helpers import auth
from tests.pdf_fixtures import make_form_pdf, make_pdf

ONE = make_pdf(["first"])
TWO = make_pdf(["second", "third"])


def page_count(data: bytes) -> int:
    return len(pikepdf.Pdf.open(io.BytesIO(data)).pages)


def test_merge_multipart_keeps_order(api: TestClient, key: str) -> None:
    files = [("files", ("a.pdf", ONE, "application/pdf")), ("files", ("b.pdf", TWO, "application/pdf"))]
    response = api.post("/v1/pdf/merge", files=files, headers=auth(key))
    assert (response.status_code, response.headers["content-type"]) == (200, "application/pdf")
    assert page_count(response.content) == 3
    text = api.post("/v1/pdf/extract-text", content=response.content, headers=auth(key)).json()
    assert [page.strip() for page in text["pages"]] == ["first", "second", "third"]


def test_merge_json(api: TestClient, key: str) -> None:
    payload = {"files": [base64.b64encode(TWO).decode(), base64.b64encode(ONE).decode()]}
    response = api.post("/v1/pdf/merge", json=payload, headers=auth(key))
    assert page_count(response.content) == 3


def test_merge_errors_name_the_input(api: TestClient, key: str) -> None:
    files = [("files", ("a.pdf", ONE, "application/pdf")), ("files", ("b.txt", b"hello", "text/plain"))]
    response = api.post("/v1/pdf/merge", files=files, headers=auth(key))
    assert (response.status_code, response.json()["error"]) == (400, "invalid_input")
    assert "file 2" in response.json()["message"]
    assert api.post("/v1/pdf/merge", json={"files": []}, headers=auth(key)).status_code == 400
    assert api.post("/v1/pdf/merge", json={"files": ["%%%"]}, headers=auth(key)).status_code == 400
    assert api.post("/v1/pdf/merge", content=b"nope", headers=auth(key)).status_code == 400


def test_info_split_rotate_render(api: TestClient, key: str) -> None:
    info = api.post("/v1/pdf/info", content=TWO, headers=auth(key)).json()
    assert info["pageCount"] == 2
    parts = api.post("/v1/pdf/split", params={"ranges": "2,1"}, content=TWO, headers=auth(key)).json()["pdfs"]
    assert [page_count(base64.b64decode(part)) for part in parts] == [1, 1]
    rotated = api.post("/v1/pdf/rotate", params={"degrees": "270"}, content=TWO, headers=auth(key))
    assert rotated.headers["content-type"] == "application/pdf"
    rendered = api.post("/v1/pdf/render-page", params={"dpi": "72"}, content=TWO, headers=auth(key)).json()
    assert [(page["page"], page["width"]) for page in rendered["pages"]] == [(1, 612)]


def test_render_page_to_jpeg_xl_with_a_target_score_says_what_each_page_chose(api: TestClient, key: str) -> None:
    params = {"dpi": "72", "pages": "1-2", "format": "jxl", "targetScore": "80"}
    rendered = api.post("/v1/pdf/render-page", params=params, content=TWO, headers=auth(key)).json()
    for page in rendered["pages"]:
        assert base64.b64decode(page["bytes"])[:2] == b"\xff\x0a"  # a JPEG XL codestream
        assert page["qualityScore"] >= 80 and 1 <= page["encoderQuality"] <= 100


def test_pdf_parameter_errors(api: TestClient, key: str) -> None:
    for path, params in (
        ("/v1/pdf/split", {}),
        ("/v1/pdf/split", {"ranges": "3-1"}),
        ("/v1/pdf/rotate", {"degrees": "45"}),
        ("/v1/pdf/render-page", {"dpi": "71"}),
        ("/v1/pdf/extract-text", {"pages": "5"}),
    ):
        response = api.post(path, params=params, content=TWO, headers=auth(key))
        assert (response.status_code, response.json()["error"]) == (400, "invalid_input"), (path, params)


def test_an_image_format_render_page_does_not_write_is_unsupported_format(api: TestClient, key: str) -> None:
    response = api.post("/v1/pdf/render-page", params={"format": "gif"}, content=TWO, headers=auth(key))
    assert (response.status_code, response.json()["error"]) == (400, "unsupported_format")
    assert response.json()["message"].startswith("format:")


def test_render_result_over_the_response_limit_is_413(
    api: TestClient, key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # GIVEN a response limit of 100,000 bytes (FILEAPI_MAX_RESPONSE_BYTES; 6,000,000 by default)
    import fileapi.web.metering as web_metering
    from fileapi.settings import get_settings

    limited = replace(get_settings(), max_response_bytes=100_000)
    monkeypatch.setattr(web_metering, "get_settings", lambda: limited)
    many = make_pdf([f"page {n}" for n in range(6)])
    # WHEN every page is asked for at 300 dpi
    response = api.post("/v1/pdf/render-page", params={"pages": "all", "dpi": "300"}, content=many, headers=auth(key))
    # THEN the answer is 413 with a message naming the limit, and nothing is counted
    assert (response.status_code, response.json()["error"]) == (413, "too_large")
    assert "100,000" in response.json()["message"]
    usage = api.get("/v1/usage", headers=auth(key)).json()
    assert usage["used_this_month"] == 0


def test_watermark_protect_compress_flatten(api: TestClient, key: str) -> None:
    marked = api.post("/v1/pdf/watermark", params={"text": "DRAFT"}, content=TWO, headers=auth(key))
    assert (marked.status_code, marked.headers["content-type"]) == (200, "application/pdf")
    missing = api.post("/v1/pdf/watermark", content=TWO, headers=auth(key))
    assert missing.status_code == 400 and missing.json()["message"].startswith("text:")
    protected = api.post("/v1/pdf/protect", params={"userPassword": "pw"}, content=TWO, headers=auth(key))
    assert protected.status_code == 200
    assert api.post("/v1/pdf/protect", content=TWO, headers=auth(key)).status_code == 400
    compressed = api.post("/v1/pdf/compress", params={"stripMetadata": "true"}, content=TWO, headers=auth(key)).json()
    assert set(compressed) == {"bytes", "originalSize", "compressedSize", "savedPercent"}
    assert isinstance(compressed["originalSize"], int) and isinstance(compressed["savedPercent"], float)
    flat = api.post("/v1/pdf/flatten", content=TWO, headers=auth(key))
    assert flat.content == TWO  # no form: unchanged


def test_fill_form_json_and_multipart(api: TestClient, key: str) -> None:
    form = make_form_pdf()
    payload = {"pdf": base64.b64encode(form).decode(), "fields": {"name": "Ada"}, "flatten": True}
    filled = api.post("/v1/pdf/fill-form", json=payload, headers=auth(key))
    assert (filled.status_code, filled.headers["content-type"]) == (200, "application/pdf")
    text = api.post("/v1/pdf/extract-text", content=filled.content, headers=auth(key)).json()["text"]
    assert "Ada" in text
    multipart = api.post(
        "/v1/pdf/fill-form",
        files={"file": ("form.pdf", form, "application/pdf")},
        data={"fields": '{"agree": true}', "flatten": "false"},
        headers=auth(key),
    )
    assert multipart.status_code == 200
    unknown = api.post("/v1/pdf/fill-form", json={**payload, "fields": {"nope": "x"}}, headers=auth(key))
    assert unknown.status_code == 400 and "nope" in unknown.json()["message"]
    bad_flag = api.post(
        "/v1/pdf/fill-form",
        files={"file": ("form.pdf", form, "application/pdf")},
        data={"fields": "{}", "flatten": "maybe"},
        headers=auth(key),
    )
    assert bad_flag.status_code == 400
