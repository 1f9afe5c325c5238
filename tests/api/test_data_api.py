"""The Data family through the composed local API (routing, metering, validation, bodies)."""

from __future__ import annotations

import base64
import json
import os

import pytest
from fastapi.testclient import TestClient

from tests.helpers import auth


def test_base64_encode_is_binary_safe(api: TestClient, key: str) -> None:
    data = os.urandom(2048) + b"\x00\r\n"
    response = api.post("/v1/data/base64-encode", content=data, headers=auth(key))
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/plain; charset=utf-8"
    assert base64.b64decode(response.content) == data


def test_base64_decode_returns_raw_bytes(api: TestClient, key: str) -> None:
    data = bytes(range(256))
    encoded = base64.urlsafe_b64encode(data).rstrip(b"=")
    response = api.post("/v1/data/base64-decode", content=encoded, headers=auth(key))
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/octet-stream"
    assert response.content == data


def test_base64_decode_invalid_is_400(api: TestClient, key: str) -> None:
    response = api.post("/v1/data/base64-decode", content=b"abc$", headers=auth(key))
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_input"


def test_base64_encode_options(api: TestClient, key: str) -> None:
    response = api.post(
        "/v1/data/base64-encode", content=b"\xfb\xff", params={"urlSafe": "true", "padding": "false"}, headers=auth(key)
    )
    assert response.text == "-_8"


def test_url_encode_and_decode(api: TestClient, key: str) -> None:
    encoded = api.post("/v1/data/url-encode", content="a b&ü".encode(), headers=auth(key))
    assert encoded.text == "a%20b%26%C3%BC"
    decoded = api.post("/v1/data/url-decode", content=encoded.content, headers=auth(key))
    assert decoded.content == "a b&ü".encode()
    assert decoded.headers["content-type"] == "text/plain; charset=utf-8"
    form = api.post("/v1/data/url-decode", content=b"a+b", params={"form": "true"}, headers=auth(key))
    assert form.text == "a b"


def test_url_decode_bad_escape_is_400(api: TestClient, key: str) -> None:
    response = api.post("/v1/data/url-decode", content=b"50%", headers=auth(key))
    assert response.status_code == 400
    assert "position 2" in response.json()["message"]


def test_json_format_default_and_indent(api: TestClient, key: str) -> None:
    response = api.post("/v1/data/json-format", content=b'{"b":1,"a":"\xc3\xa9"}', headers=auth(key))
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.content == '{\n  "b": 1,\n  "a": "é"\n}\n'.encode()
    four = api.post("/v1/data/json-format", content=b"[1]", params={"indent": "4"}, headers=auth(key))
    assert four.content == b"[\n    1\n]\n"


@pytest.mark.parametrize("indent", ["0", "9", "x"])
def test_json_format_indent_out_of_bounds_is_400_naming_it(api: TestClient, key: str, indent: str) -> None:
    response = api.post("/v1/data/json-format", content=b"[1]", params={"indent": indent}, headers=auth(key))
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "invalid_input"
    assert body["message"].startswith("indent:")


def test_json_minify(api: TestClient, key: str) -> None:
    response = api.post("/v1/data/json-minify", content=b'{ "a" : [ 1 , 2 ] }', headers=auth(key))
    assert response.content == b'{"a":[1,2]}'


def test_invalid_json_is_400(api: TestClient, key: str) -> None:
    response = api.post("/v1/data/json-format", content=b"{nope", headers=auth(key))
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_input"


def test_csv_to_json(api: TestClient, key: str) -> None:
    response = api.post("/v1/data/csv-to-json", content=b"\xef\xbb\xbfa;b\r\n1;2\r\n", headers=auth(key))
    assert response.status_code == 200
    assert response.json() == [{"a": "1", "b": "2"}]
    tab = api.post("/v1/data/csv-to-json", content=b"a:b\n1:2", params={"delimiter": ":"}, headers=auth(key))
    assert tab.json() == [{"a": "1", "b": "2"}]


def test_csv_to_json_long_delimiter_is_400(api: TestClient, key: str) -> None:
    response = api.post("/v1/data/csv-to-json", content=b"a", params={"delimiter": "::"}, headers=auth(key))
    assert response.status_code == 400
    assert response.json()["message"].startswith("delimiter:")


def test_json_to_csv(api: TestClient, key: str) -> None:
    response = api.post("/v1/data/json-to-csv", content=b'[{"a":1,"b":"=x"},{"c":[1]}]', headers=auth(key))
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/csv; charset=utf-8"
    assert response.content == b"a,b,c\r\n1,'=x,\r\n,,[1]\r\n"


def test_json_to_csv_non_array_is_400(api: TestClient, key: str) -> None:
    response = api.post("/v1/data/json-to-csv", content=json.dumps({"a": 1}).encode(), headers=auth(key))
    assert response.status_code == 400
    assert "array of objects" in response.json()["message"]
