"""Bodies as a newcomer sends them (issue 20): a file as multipart on every bytes-in route, JSON under any
Content-Type, and messages that say what to send instead."""

from __future__ import annotations

import asyncio
import io
import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from PIL import Image

from fileapi.convert.codes_options import QrOutput
from fileapi.convert.qr import generate_qr
from fileapi.local.server import function_app
from fileapi.local.template import TEMPLATE_PATH, load_functions
from fileapi.web.docs import MULTIPART_EXTENSION
from fileapi.web.errors import BODY_HINT, SEND_JSON
from fileapi.web.request_bodies import BodyKind, route_bodies
from fileapi.web.spec import OPENAPI_PATH
from tests.helpers import auth
from tests.pdf_fixtures import make_form_pdf, make_pdf


def png(width: int = 40, height: int = 30) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (10, 200, 30)).save(out, "PNG")
    return out.getvalue()


PNG = png()
PDF = make_pdf(["one", "two"])
QR = generate_qr("hello", output=QrOutput.PNG).data
SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8"/></svg>'
# A valid input and the required options of every bytes-in route.
SAMPLES: dict[str, tuple[dict[str, str], bytes]] = {
    "/v1/data/base64-encode": ({}, b"hello"),
    "/v1/data/base64-decode": ({}, b"aGVsbG8="),
    "/v1/data/url-encode": ({}, b"a b&c"),
    "/v1/data/url-decode": ({}, b"a%20b"),
    "/v1/data/json-format": ({}, b'{"b": 1, "a": [true]}'),
    "/v1/data/json-minify": ({}, b'{"b": 1,  "a": [true]}'),
    "/v1/data/csv-to-json": ({}, b"a,b\n1,2\n"),
    "/v1/data/json-to-csv": ({}, b'[{"a": 1, "b": 2}]'),
    "/v1/image/convert": ({"to": "webp"}, PNG),
    "/v1/image/resize": ({"width": "20"}, PNG),
    "/v1/image/compress": ({"quality": "50"}, PNG),
    "/v1/image/strip-metadata": ({}, PNG),
    "/v1/image/read-metadata": ({}, PNG),
    "/v1/image/favicon-set": ({}, png(64, 64)),
    "/v1/image/crop": ({"x": "1", "y": "1", "width": "10", "height": "10"}, PNG),
    "/v1/image/rotate": ({"degrees": "90"}, PNG),
    "/v1/image/flip": ({"direction": "horizontal"}, PNG),
    "/v1/pdf/info": ({}, PDF),
    "/v1/pdf/extract-text": ({"pages": "2"}, PDF),
    "/v1/pdf/render-page": ({"dpi": "72"}, PDF),
    "/v1/pdf/split": ({"ranges": "1,2"}, PDF),
    "/v1/pdf/rotate": ({"degrees": "90"}, PDF),
    "/v1/pdf/watermark": ({"text": "draft"}, PDF),
    "/v1/pdf/flatten": ({}, make_form_pdf()),
    "/v1/pdf/compress": ({}, PDF),
    "/v1/pdf/protect": ({"userPassword": "secret"}, PDF),
    "/v1/qr/read": ({}, QR),
    "/v1/barcode/read": ({}, QR),
    "/v1/render/svg-to-png": ({}, SVG),
    "/v1/file/hash": ({}, b"hello"),
    "/v1/file/detect": ({}, PNG),
    "/v1/text/word-count": ({}, b"two words"),
    "/v1/text/markdown-to-html": ({}, b"# Title"),
    "/v1/pdf/unlock": ({}, PDF),
    "/v1/pdf/metadata": ({"title": "T"}, PDF),
    "/v1/pdf/pages": ({"order": "2,1"}, PDF),
    "/v1/pdf/redact": ({"area": "1,0,0,10,10"}, PDF),
    "/v1/pdf/ocr": ({}, PDF),
    "/v1/image/ocr": ({}, PNG),
}
JSON_SAMPLES: dict[str, dict[str, Any]] = {
    "/v1/qr/generate": {"text": "hello"},
    "/v1/barcode/generate": {"text": "400638133393", "format": "ean13"},
    "/v1/text/diff": {"a": "one\ntwo\n", "b": "one\nthree\n"},
    "/v1/color/convert": {"color": "#ff0000"},
}
FORM = "application/x-www-form-urlencoded"


def routes_of_kind(kind: BodyKind) -> set[str]:
    return {
        path
        for spec in load_functions(TEMPLATE_PATH)
        for (_, path), body in route_bodies(function_app(spec).router.routes).items()
        if body.kind is kind
    }


def test_the_samples_cover_every_bytes_in_route() -> None:
    assert set(SAMPLES) == routes_of_kind(BodyKind.RAW)
    assert set(JSON_SAMPLES) <= routes_of_kind(BodyKind.JSON)


def test_the_openapi_document_describes_the_form_beside_each_raw_body() -> None:
    # The form is in an extension, not in `content`: generators given two bodies write broken clients.
    paths = json.loads(OPENAPI_PATH.read_bytes())["paths"]
    for path in SAMPLES:
        body = paths[path]["post"]["requestBody"]
        assert "multipart/form-data" not in body["content"], path
        schema = body[MULTIPART_EXTENSION]["multipart/form-data"]["schema"]
        assert (schema["required"], schema["properties"]["file"]["format"]) == (["file"], "binary"), path
        assert "curl -F file=@photo.jpg" in schema["description"]


@pytest.mark.parametrize("path", sorted(SAMPLES))
def test_every_bytes_in_route_takes_its_file_and_options_as_a_form(api: TestClient, key: str, path: str) -> None:
    # (qpdf finds a PDF inside a form's framing by itself: for the PDF routes the options tell)
    params, data = SAMPLES[path]
    raw = api.post(path, params=params, content=data, headers={**auth(key), "Content-Type": "application/octet-stream"})
    form = api.post(path, data=params, files={"file": ("input", data)}, headers=auth(key))
    assert raw.status_code == 200, raw.text
    assert (form.status_code, form.headers["content-type"]) == (200, raw.headers["content-type"]), form.text
    # (the PDF writers put a fresh document id in each result: qpdf's is the time's when the input has none)
    if path == "/v1/pdf/compress":
        sizes = {name: value for name, value in raw.json().items() if name != "bytes"}
        assert {name: value for name, value in form.json().items() if name != "bytes"} == sizes
        assert len(form.json()["bytes"]) == len(raw.json()["bytes"])
    elif path not in ("/v1/pdf/split", "/v1/pdf/rotate", "/v1/pdf/watermark", "/v1/pdf/flatten", "/v1/pdf/protect"):
        assert form.content == raw.content


def test_a_single_file_part_may_have_any_name(api: TestClient, key: str) -> None:
    files = {"upload": ("photo.png", PNG, "image/png")}
    response = api.post("/v1/image/resize?width=10", files=files, headers=auth(key))
    assert response.status_code == 200, response.text
    assert Image.open(io.BytesIO(response.content)).size == (10, 8)


def test_a_plain_part_named_file_is_the_input(api: TestClient, key: str) -> None:
    response = api.post("/v1/text/word-count", files={"file": (None, "three little words")}, headers=auth(key))
    assert response.status_code == 200, response.text
    assert response.json()["words"] == 3


def test_options_may_be_form_fields(api: TestClient, key: str) -> None:
    response = api.post(
        "/v1/image/resize",
        data={"width": "12", "format": "webp"},
        files={"file": ("photo.png", PNG, "image/png")},
        headers=auth(key),
    )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "image/webp"
    assert Image.open(io.BytesIO(response.content)).size == (12, 9)


def test_form_field_values_are_validated_like_query_parameters(api: TestClient, key: str) -> None:
    response = api.post("/v1/image/resize", data={"width": "0"}, files={"file": ("p.png", PNG)}, headers=auth(key))
    assert response.status_code == 400
    assert response.json()["message"].startswith("width:")


def test_two_file_parts_are_400_naming_them(api: TestClient, key: str) -> None:
    files = [("front", ("a.png", PNG, "image/png")), ("back", ("b.png", PNG, "image/png"))]
    response = api.post("/v1/image/resize?width=10", files=files, headers=auth(key))
    assert (response.status_code, response.json()["error"]) == (400, "invalid_input")
    assert "2 files (parts 'front', 'back')" in response.json()["message"]
    assert "X-Quota-Remaining" in response.headers  # after admission, given back like any 400


def test_an_option_given_twice_is_400(api: TestClient, key: str) -> None:
    files = {"file": ("p.png", PNG)}
    response = api.post("/v1/image/resize?width=10", data={"width": "20"}, files=files, headers=auth(key))
    assert response.status_code == 400
    assert response.json()["message"] == "'width' is given both in the query string and as a form field; give it once"


def test_a_form_without_a_file_is_400_saying_how_to_send_one(api: TestClient, key: str) -> None:
    response = api.post("/v1/image/resize", files={"width": (None, "10")}, headers=auth(key))
    assert response.status_code == 400
    assert "-F file=@file" in response.json()["message"]


def test_a_form_cut_short_is_400(api: TestClient, key: str) -> None:
    body = b'--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n' + PNG[:20]
    headers = {**auth(key), "Content-Type": "multipart/form-data; boundary=xyz"}
    response = api.post("/v1/image/strip-metadata", content=body, headers=headers)
    assert response.status_code == 400
    assert "closing boundary" in response.json()["message"]


def test_form_errors_come_after_authentication(api: TestClient) -> None:
    files = [("a", ("a.png", PNG)), ("b", ("b.png", PNG))]
    response = api.post("/v1/image/resize?width=10", files=files)
    assert (response.status_code, response.json()["error"]) == (401, "unauthorized")


def test_a_form_over_the_limit_is_413_from_its_length(api: TestClient, key: str) -> None:
    response = api.post("/v1/file/hash", files={"file": ("big", b"\0" * 4_500_001)}, headers=auth(key))
    assert (response.status_code, response.json()["error"]) == (413, "too_large")


def test_a_streamed_form_over_the_limit_is_413_before_it_is_read_in_full(api: TestClient, key: str) -> None:
    chunk_bytes, chunks = 64 * 1024, 120  # 7.9 MB against the 4,500,000-byte limit, with no Content-Length
    head = b'--xyz\r\nContent-Disposition: form-data; name="file"; filename="big"\r\n\r\n'
    sent = 0

    async def receive() -> dict[str, Any]:
        nonlocal sent
        sent += 1
        body = head if sent == 1 else b"\0" * chunk_bytes
        return {"type": "http.request", "body": body, "more_body": sent < chunks}

    messages: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        messages.append(message)

    headers = [(b"authorization", f"Bearer {key}".encode()), (b"content-type", b"multipart/form-data; boundary=xyz")]
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/v1/file/hash",
        "raw_path": b"/v1/file/hash",
        "query_string": b"",
        "headers": headers,
        "http_version": "1.1",
        "scheme": "http",
        "server": ("test", 80),
        "client": ("127.0.0.1", 1),
        "root_path": "",
    }
    asyncio.run(api.app(scope, receive, send))  # type: ignore[arg-type]
    assert messages[0]["status"] == 413
    assert json.loads(messages[1]["body"])["error"] == "too_large"
    assert (sent - 1) * chunk_bytes <= 4_500_000 + chunk_bytes < (chunks - 1) * chunk_bytes


@pytest.mark.parametrize(
    "content_type",
    [
        None,
        "application/json",
        "Application/JSON; charset=utf-8",
        "application/vnd.api+json",
        "text/x+json",
        "text/plain",
        FORM,
        "application/octet-stream",
    ],
)
@pytest.mark.parametrize("path", sorted(JSON_SAMPLES))
def test_json_routes_parse_json_whatever_its_content_type(
    api: TestClient, key: str, path: str, content_type: str | None
) -> None:
    headers = auth(key) | ({"Content-Type": content_type} if content_type else {})
    response = api.post(path, content=json.dumps(JSON_SAMPLES[path]).encode(), headers=headers)
    assert response.status_code == 200, response.text


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"text=hello", "the body is not valid JSON (Expecting value at character 0)"),
        (b"", "the body is empty"),
        (b'["hello"]', "the body must be a JSON object"),
    ],
)
def test_a_json_route_says_how_to_send_json(api: TestClient, key: str, body: bytes, message: str) -> None:
    response = api.post("/v1/qr/generate", content=body, headers={**auth(key), "Content-Type": FORM})
    assert (response.status_code, response.json()["error"]) == (400, "invalid_input")
    assert response.json()["message"] == f"{message}; {SEND_JSON}"


def test_a_json_field_error_still_names_the_field(api: TestClient, key: str) -> None:
    response = api.post("/v1/qr/generate", content=b'{"text": ""}', headers={**auth(key), "Content-Type": "text/plain"})
    assert response.json()["message"].startswith("text:")


@pytest.mark.parametrize(
    ("path", "content_type", "body"),
    [
        ("/v1/image/resize?width=100", FORM, b"width=100"),  # curl -d width=100
        ("/v1/image/resize", FORM, b"width=100"),  # the options only missing: they went as the body
        ("/v1/image/convert", FORM, b"to=webp"),
        ("/v1/pdf/info", "application/json", b'{"url": "https://example.com/a.pdf"}'),
        ("/v1/qr/read", FORM, b'{"image": "iVBORw0KGgo="}'),  # curl -d '{...}'
    ],
)
def test_a_form_or_json_to_a_bytes_in_route_says_how_to_send_a_file(
    api: TestClient, key: str, path: str, content_type: str, body: bytes
) -> None:
    response = api.post(path, content=body, headers={**auth(key), "Content-Type": content_type})
    assert response.status_code == 400
    assert response.json()["message"].endswith(f"; {BODY_HINT}")


def test_json_labelled_json_to_a_json_taking_bytes_in_route_gets_no_file_hint(api: TestClient, key: str) -> None:
    headers = {**auth(key), "Content-Type": "application/json"}
    response = api.post("/v1/data/json-format", content=b'{"a": ', headers=headers)
    assert response.status_code == 400
    assert BODY_HINT not in response.json()["message"]


def test_raw_bytes_labelled_as_a_form_still_work(api: TestClient, key: str) -> None:
    # curl --data-binary @photo.png without -H labels the bytes application/x-www-form-urlencoded
    response = api.post("/v1/image/resize?width=10", content=PNG, headers={**auth(key), "Content-Type": FORM})
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("path", "body", "says"),
    [
        ("/v1/image/resize?width=0", PNG, "width"),
        ("/v1/pdf/redact?pattern=%5B", make_pdf(["x"]), "is not a regular expression"),  # a converter's check
        ("/v1/pdf/redact?area=1,1e308,1e308,1e308,1e308", make_pdf(["x"]), "lies outside page 1"),
        ("/v1/pdf/rotate?degrees=90&pages=9", make_pdf(["x"]), "outside the document's 1 page"),
        ("/v1/pdf/pages?order=2", make_pdf(["x"]), "outside the document's 1 page"),
    ],
)
def test_a_parameter_error_of_a_form_labelled_body_has_no_file_hint(
    api: TestClient, key: str, path: str, body: bytes, says: str
) -> None:
    response = api.post(path, content=body, headers={**auth(key), "Content-Type": FORM})
    assert response.status_code == 400
    assert says in response.json()["message"] and BODY_HINT not in response.json()["message"]


def test_merge_and_fill_form_keep_their_own_forms(api: TestClient, key: str) -> None:
    files = [("files", ("a.pdf", make_pdf(["a"]), "application/pdf")), ("files", ("b.pdf", make_pdf(["b"]), None))]
    merged = api.post("/v1/pdf/merge", files=files, headers=auth(key))
    assert merged.status_code == 200, merged.text
    filled = api.post(
        "/v1/pdf/fill-form",
        data={"fields": json.dumps({"name": "Ada"})},
        files={"file": ("form.pdf", make_form_pdf(), "application/pdf")},
        headers=auth(key),
    )
    assert filled.status_code == 200, filled.text


@pytest.mark.parametrize(
    ("path", "says"),
    [("/v1/pdf/merge", "-F files=@a.pdf -F files=@b.pdf"), ("/v1/pdf/fill-form", "-F file=@form.pdf")],
)
def test_merge_and_fill_form_say_how_to_send_their_inputs(api: TestClient, key: str, path: str, says: str) -> None:
    for body in (b"", b"files=a.pdf", b"[]"):
        response = api.post(path, content=body, headers={**auth(key), "Content-Type": FORM})
        assert response.status_code == 400
        assert says in response.json()["message"] and "JSON {" in response.json()["message"]
