from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fileapi.convert.json_text import format_json, minify_json
from fileapi.errors import InvalidInput

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=20,
)


def test_format_uses_two_spaces_and_keeps_key_order() -> None:
    assert format_json(b'{"z":1,"a":[1,2],"e":{}}') == b'{\n  "z": 1,\n  "a": [\n    1,\n    2\n  ],\n  "e": {}\n}\n'


def test_format_keeps_unicode_unescaped() -> None:
    assert format_json('{"k":"héllo ✓"}'.encode()) == '{\n  "k": "héllo ✓"\n}\n'.encode()


def test_format_keeps_number_text_exactly() -> None:
    out = format_json(b'{"a":1.10,"b":1e5,"c":123456789012345678901234567890,"d":-0}')
    assert out == b'{\n  "a": 1.10,\n  "b": 1e5,\n  "c": 123456789012345678901234567890,\n  "d": -0\n}\n'


def test_format_with_indent_4() -> None:
    assert format_json(b"[1,[]]", indent=4) == b"[\n    1,\n    []\n]\n"


def test_format_rejects_indent_out_of_range() -> None:
    with pytest.raises(InvalidInput, match=r"indent must be 1\.\.8, not 9"):
        format_json(b"[]", indent=9)


@pytest.mark.parametrize("text", [b"", b"{", b"[1,]", b"NaN", b"{'a':1}", b'{"a":1} x', b"\xff"])
def test_invalid_json_is_invalid_input(text: bytes) -> None:
    with pytest.raises(InvalidInput, match="not valid JSON"):
        format_json(text)
    with pytest.raises(InvalidInput, match="not valid JSON"):
        minify_json(text)


def test_minify_removes_whitespace_outside_strings_only() -> None:
    assert minify_json(b'{ "a b" : [ 1 , 2.50 ] ,\n "c":"x  y" }') == b'{"a b":[1,2.50],"c":"x  y"}'


def test_minify_keeps_escapes_inside_strings() -> None:
    assert minify_json(b'[ "a\\" ]" ]') == b'["a\\" ]"]'


def test_utf8_bom_is_ignored() -> None:
    assert minify_json(b"\xef\xbb\xbf [1]") == b"[1]"


@given(json_values)
def test_format_and_minify_preserve_the_value(value: object) -> None:
    text = json.dumps(value, ensure_ascii=False).encode()
    assert json.loads(format_json(text)) == value
    assert json.loads(format_json(text, indent=3)) == value
    assert json.loads(minify_json(text)) == value
    assert minify_json(format_json(text, indent=3)) == minify_json(text)


def test_deep_nesting_beyond_orjsons_writer_is_formatted() -> None:
    deep = b"[" * 500 + b"]" * 500
    assert minify_json(deep) == deep
    assert json.loads(format_json(deep)) == json.loads(deep)
