"""A response's payload size as Lambda serialises it, counted without serialising the body."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st
from starlette.responses import Response

from fileapi.convert.encoding import encode_base64, encode_url
from fileapi.web.limits import PlainText, json_string_length, payload_size


def encoded_length(data: bytes) -> int | None:
    try:
        return len(json.dumps(data.decode("utf-8")))
    except UnicodeDecodeError:
        return None


@given(st.binary(max_size=300))
def test_the_length_of_any_bytes_as_a_json_string(data: bytes) -> None:
    assert json_string_length(data) == encoded_length(data)


@given(st.text(max_size=200))
def test_the_length_of_any_text_as_a_json_string(text: str) -> None:
    data = text.encode("utf-8", "surrogatepass")
    assert json_string_length(data) == encoded_length(data)


def test_every_ascii_byte_counts_as_json_escapes_it() -> None:
    every = bytes(range(128))
    assert json_string_length(every) == len(json.dumps(every.decode())) == 2 + 95 - 2 + 2 * 2 + 2 * 5 + 6 * 28


def test_a_text_answer_is_measured_as_its_escaped_text_and_a_binary_one_as_base64() -> None:
    text = Response(b'a "quoted"\nline\x7f', media_type="text/plain")
    binary = Response(b"\x00" * 30, media_type="image/png")
    envelope = len(json.dumps({"statusCode": 200, "body": "", "headers": dict(text.headers), "isBase64Encoded": False}))
    assert payload_size(text) == envelope - 2 + len(json.dumps('a "quoted"\nline\x7f')) + 512
    binary_envelope = {"statusCode": 200, "body": "", "headers": dict(binary.headers), "isBase64Encoded": True}
    assert payload_size(binary) == len(json.dumps(binary_envelope)) - 2 + 42 + 512


@given(st.binary(max_size=200), st.booleans(), st.booleans())
def test_base64_is_plain_text_for_json(data: bytes, url_safe: bool, padding: bool) -> None:
    encoded = encode_base64(data, url_safe=url_safe, padding=padding)
    assert json_string_length(encoded) == len(encoded) + 2


@given(st.text(max_size=100), st.booleans())
def test_percent_encoding_is_plain_text_for_json(text: str, form: bool) -> None:
    encoded = encode_url(text.encode("utf-8"), form=form)  # hypothesis' text has no lone surrogates
    assert json_string_length(encoded) == len(encoded) + 2


def test_a_plain_text_answer_is_measured_without_a_scan() -> None:
    body = b"QUJD" * 10
    assert payload_size(PlainText(body)) == payload_size(Response(body, media_type="text/plain"))
    assert PlainText(body).headers["content-type"] == "text/plain; charset=utf-8"
