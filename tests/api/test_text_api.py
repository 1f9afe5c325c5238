"""The File, Text and Colour endpoints through the composed local API."""

from __future__ import annotations

import hashlib
import json

import pytest
from fastapi.testclient import TestClient

from tests.helpers import auth


@pytest.mark.parametrize("algorithm", ["md5", "sha1", "sha256", "sha384", "sha512"])
def test_file_hash(api: TestClient, key: str, algorithm: str) -> None:
    data = bytes(range(256)) * 3
    response = api.post("/v1/file/hash", params={"algorithm": algorithm}, content=data, headers=auth(key))
    assert response.status_code == 200
    body = response.json()
    assert body["hex"] == hashlib.new(algorithm, data).hexdigest()
    assert (body["algorithm"], body["bytes"]) == (algorithm, 768)


def test_file_hash_defaults_to_sha256_and_rejects_unknown(api: TestClient, key: str) -> None:
    assert api.post("/v1/file/hash", content=b"x", headers=auth(key)).json()["algorithm"] == "sha256"
    response = api.post("/v1/file/hash", params={"algorithm": "crc32"}, content=b"x", headers=auth(key))
    assert response.status_code == 400
    assert response.json()["message"].startswith("algorithm:")


def test_file_detect(api: TestClient, key: str) -> None:
    response = api.post("/v1/file/detect", content=b"%PDF-1.7\n", headers=auth(key))
    assert response.json() == {"mime": "application/pdf", "extension": "pdf", "description": "PDF document"}
    text = api.post("/v1/file/detect", content="héllo".encode(), headers=auth(key)).json()
    assert (text["mime"], text["description"]) == ("text/plain", "UTF-8 text")
    unknown = api.post("/v1/file/detect", content=b"\x00\x01\x02\x03\xfe", headers=auth(key)).json()
    assert unknown["mime"] == "application/octet-stream"


def test_file_detect_empty_body_is_400(api: TestClient, key: str) -> None:
    response = api.post("/v1/file/detect", content=b"", headers=auth(key))
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_input"


def test_word_count(api: TestClient, key: str) -> None:
    response = api.post("/v1/text/word-count", content=b"One two. Three!", headers=auth(key))
    assert response.json()["words"] == 3
    assert response.json()["sentences"] == 2
    assert api.post("/v1/text/word-count", content=b"\xff", headers=auth(key)).status_code == 400


def test_text_diff(api: TestClient, key: str) -> None:
    response = api.post(
        "/v1/text/diff", json={"a": "x\ny\n", "b": "x\nz\n", "labelA": "old", "labelB": "new"}, headers=auth(key)
    )
    body = response.json()
    assert body["unified"] == "--- old\n+++ new\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n"
    assert (body["identical"], body["added"], body["removed"]) == (False, 1, 1)
    lines = [{"type": "context", "text": "x"}, {"type": "removed", "text": "y"}, {"type": "added", "text": "z"}]
    assert body["hunks"] == [{"oldStart": 1, "oldLines": 2, "newStart": 1, "newLines": 2, "lines": lines}]


def test_text_diff_of_a_lone_surrogate_is_400(api: TestClient, key: str) -> None:
    body = b'{"a": "x\\n\\ud800\\n", "b": "x\\n"}'  # JSON's escapes allow a lone surrogate; no UTF-8 text does
    response = api.post("/v1/text/diff", content=body, headers={**auth(key), "Content-Type": "application/json"})
    assert response.status_code == 400
    assert response.json()["message"].startswith("a holds a lone surrogate (U+D800)")


@pytest.mark.parametrize(
    ("payload", "field"),
    [({"b": "x"}, "a:"), ({"a": "x", "b": "y", "context": -1}, "context:"), ({"a": 1, "b": "y"}, "a:")],
)
def test_text_diff_validation(api: TestClient, key: str, payload: dict[str, object], field: str) -> None:
    response = api.post("/v1/text/diff", json=payload, headers=auth(key))
    assert response.status_code == 400
    assert response.json()["message"].startswith(field)


def test_text_diff_malformed_json_is_400(api: TestClient, key: str) -> None:
    response = api.post("/v1/text/diff", content=b"{nope", headers={**auth(key), "Content-Type": "application/json"})
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_input"


def test_markdown_to_html(api: TestClient, key: str) -> None:
    response = api.post("/v1/text/markdown-to-html", content=b"# Hi <b>x</b>", headers=auth(key))
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.text == "<h1>Hi &lt;b&gt;x&lt;/b&gt;</h1>\n"
    raw = api.post("/v1/text/markdown-to-html", params={"allowHtml": "true"}, content=b"<b>x</b>", headers=auth(key))
    assert raw.text == "<p><b>x</b></p>\n"


def test_color_convert(api: TestClient, key: str) -> None:
    response = api.post("/v1/color/convert", json={"color": "teal"}, headers=auth(key))
    assert response.status_code == 200
    assert response.json()["hex"] == "#008080"
    bad = api.post("/v1/color/convert", json={"color": "rgb(999,0,0)"}, headers=auth(key))
    assert bad.status_code == 400
    assert "999 is out of range" in bad.json()["message"]
    assert "rgb(999" not in bad.json()["message"]
    missing = api.post("/v1/color/convert", json={}, headers=auth(key))
    assert missing.status_code == 400
    assert missing.json()["message"].startswith("color:")


@pytest.mark.parametrize(
    ("path", "text", "expected"),
    [
        ("/v1/text/word-count", "hello world", b'"characters":11'),
        ("/v1/text/markdown-to-html", "# hi", b"<h1>hi</h1>"),
        ("/v1/data/url-encode", "a b", b"a%20b"),
        ("/v1/data/base64-decode", "aGk=", b"hi"),
        ("/v1/data/csv-to-json", "a,b\n1,2\n", b'[{"a":"1","b":"2"}]'),
    ],
)
def test_text_endpoints_take_a_json_string_as_its_text(
    api: TestClient, key: str, path: str, text: str, expected: bytes
) -> None:
    # GIVEN the text as a JSON string labelled application/json (what an SDK or a fetch() with JSON sends)
    body = json.dumps(text).encode()
    response = api.post(path, content=body, headers={**auth(key), "Content-Type": "application/json"})
    # THEN the endpoint works on the string's value: its quotes are not counted, escaped or rendered
    assert response.status_code == 200, response.text
    assert expected in response.content


def test_a_text_endpoint_refuses_other_json_saying_what_to_send(api: TestClient, key: str) -> None:
    response = api.post(
        "/v1/text/word-count", content=b'{"text": "hi"}', headers={**auth(key), "Content-Type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json()["message"] == (
        "this endpoint takes text, and the body is a JSON object: send the text itself "
        "(-H 'Content-Type: text/plain' --data-binary @file.txt) or one JSON string"
    )
    # the same text without the JSON label is text, braces and all
    plain = api.post(
        "/v1/text/word-count", content=b'{"text": "hi"}', headers={**auth(key), "Content-Type": "text/plain"}
    )
    assert plain.json()["characters"] == 14


@pytest.mark.parametrize(
    ("content_type", "characters"),
    [
        ("application/json", 3),
        ("Application/JSON; charset=utf-8", 3),
        ("application/vnd.api+json", 3),
        ("text/x+json", 5),  # not JSON by FastAPI's rule (application/json or application/*+json): text
        ("text/plain", 5),
    ],
)
def test_a_text_body_is_a_json_string_by_the_same_rule_as_json_bodies(
    api: TestClient, key: str, content_type: str, characters: int
) -> None:
    response = api.post("/v1/text/word-count", content=b'"a b"', headers={**auth(key), "Content-Type": content_type})
    assert response.status_code == 200, response.text
    assert response.json()["characters"] == characters
