from __future__ import annotations

import base64
import os
import urllib.parse

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fileapi.convert.encoding import decode_base64, decode_url, encode_base64, encode_url
from fileapi.errors import InvalidInput


def test_encode_base64_matches_stdlib_on_random_bytes() -> None:
    data = os.urandom(4099)
    assert encode_base64(data) == base64.b64encode(data)


@pytest.mark.parametrize("size", [0, 1, 2, 3, 31, 32, 33, 47, 48, 49, 1023, 65_537, 4_500_000])
def test_encode_base64_equals_the_standard_library_in_every_variant(size: int) -> None:
    data = os.urandom(size)
    standard = base64.b64encode(data)
    url_safe = base64.urlsafe_b64encode(data)
    assert encode_base64(data) == standard
    assert encode_base64(data, url_safe=True) == url_safe
    assert encode_base64(data, padding=False) == standard.rstrip(b"=")
    assert encode_base64(data, url_safe=True, padding=False) == url_safe.rstrip(b"=")


@given(st.binary(max_size=300), st.booleans(), st.booleans())
def test_encode_base64_equals_the_standard_library_on_generated_bytes(
    data: bytes, url_safe: bool, padding: bool
) -> None:
    expected = base64.urlsafe_b64encode(data) if url_safe else base64.b64encode(data)
    assert encode_base64(data, url_safe=url_safe, padding=padding) == (expected if padding else expected.rstrip(b"="))


def test_encode_base64_url_safe_without_padding() -> None:
    data = b"\xfb\xff\xfe"
    assert encode_base64(data, url_safe=True) == b"-__-"
    assert encode_base64(b"a", url_safe=True, padding=False) == b"YQ"


@given(st.binary(max_size=300))
def test_base64_round_trips_in_both_alphabets(data: bytes) -> None:
    assert decode_base64(encode_base64(data)) == data
    assert decode_base64(encode_base64(data, url_safe=True, padding=False)) == data


def test_decode_base64_tolerates_whitespace_and_missing_padding() -> None:
    assert decode_base64(b"aGVs\r\nbG8g\n d29y bGQ") == b"hello world"
    assert decode_base64(b"YQ") == b"a"


def test_decode_base64_empty_is_empty() -> None:
    assert decode_base64(b"") == b""


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (b"ab+c-d==", "mixes"),
        (b"abc*", "unexpected character at position 3"),
        (b"abcde", "impossible length"),
        (b"ab=c", "not valid Base64"),
        (b"YQ===", "more than two"),
    ],
)
def test_decode_base64_rejects_invalid_text(text: bytes, reason: str) -> None:
    with pytest.raises(InvalidInput, match=reason):
        decode_base64(text)


def test_encode_url_keeps_only_unreserved_characters() -> None:
    assert encode_url("a b/ü~-._?&=".encode()) == b"a%20b%2F%C3%BC~-._%3F%26%3D"
    assert encode_url(b"a b", form=True) == b"a+b"


def test_encode_url_keeps_a_byte_order_mark() -> None:
    assert encode_url(b"\xef\xbb\xbfa b") == b"%EF%BB%BFa%20b"
    assert decode_url(encode_url(b"\xef\xbb\xbf")) == b"\xef\xbb\xbf"


def test_encode_url_rejects_invalid_utf8() -> None:
    with pytest.raises(InvalidInput, match="not valid UTF-8"):
        encode_url(b"\xff")


@given(st.text(max_size=200))
def test_url_round_trips_and_agrees_with_urllib(text: str) -> None:
    data = text.encode("utf-8", "surrogatepass")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return
    encoded = encode_url(data)
    assert encoded.decode() == urllib.parse.quote(text, safe="")
    assert decode_url(encoded) == data


def test_decode_url_plus_is_literal_unless_form() -> None:
    assert decode_url(b"a+b%20c") == b"a+b c"
    assert decode_url(b"a+b%20c", form=True) == b"a b c"


@pytest.mark.parametrize(("text", "reason"), [(b"100%", "position 3"), (b"%zz", "position 0"), (b"%C3", "UTF-8")])
def test_decode_url_rejects_bad_escapes(text: bytes, reason: str) -> None:
    with pytest.raises(InvalidInput, match=reason):
        decode_url(text)
