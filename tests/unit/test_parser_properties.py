"""Every parser the project writes itself, on any input: a result or one of the contract's errors
(an ApiError), never another exception. Inputs are generated near each grammar, not just at random."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable

from hypothesis import given
from hypothesis import strategies as st

from fileapi.convert.color import convert_color
from fileapi.convert.csv_json import csv_to_json, json_to_csv
from fileapi.convert.detect import detect_type
from fileapi.convert.encoding import decode_base64, decode_url, encode_url
from fileapi.convert.json_text import format_json, minify_json
from fileapi.convert.markdown_html import markdown_to_html
from fileapi.convert.pages import parse_pages, parse_ranges
from fileapi.convert.textdiff import diff_texts
from fileapi.convert.wordcount import count_text
from fileapi.errors import ApiError

# Text near each grammar: its own alphabet, numbers, separators, and a little of anything.
page_text = st.text(alphabet="0123456789,- al", max_size=40) | st.text(max_size=20)
colour_text = st.one_of(
    st.from_regex(r"#[0-9a-fA-F]{0,9}", fullmatch=True),
    st.builds(
        lambda name, parts, sep: f"{name}({sep.join(parts)})",
        st.sampled_from(["rgb", "rgba", "hsl", "hsla", "hwb", "cmyk", "device-cmyk", "lab", "color"]),
        st.lists(
            st.from_regex(r"-?[0-9]{0,4}(\.[0-9]{0,3})?(e[+-]?[0-9]{1,3})?(%|deg|rad|grad|turn)?", fullmatch=True),
            max_size=6,
        ),
        st.sampled_from([",", " ", " / ", ", "]),
    ),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz -", max_size=25),
    st.text(max_size=40),
)
json_like = st.text(alphabet='{}[],:"0123456789.eE+-tfnrulase \\/u\n', max_size=80).map(str.encode)
csv_like = st.text(alphabet='a1,;|\t"\r\n =+-@', max_size=120).map(str.encode)


def result_or_api_error(action: Callable[[], object]) -> None:
    with contextlib.suppress(ApiError):
        action()


@given(page_text, st.integers(min_value=1, max_value=3000))
def test_page_ranges(text: str, count: int) -> None:
    try:
        ranges = parse_ranges(text, count)
    except ApiError:
        return
    assert ranges and all(1 <= first <= last <= count for first, last in ranges)


@given(page_text | st.none(), st.integers(min_value=1, max_value=3000), st.booleans())
def test_page_lists(text: str | None, count: int, default_all: bool) -> None:
    try:
        pages = parse_pages(text, count, default_all=default_all)
    except ApiError:
        return
    assert all(1 <= page <= count for page in pages)


@given(colour_text)
def test_colours(text: str) -> None:
    try:
        result = convert_color(text)
    except ApiError:
        return
    assert result["hex"].startswith("#") and len(result["hex"]) in (7, 9)
    assert all(0 <= result["rgb"][channel] <= 255 for channel in "rgb")


@given(
    csv_like | st.binary(max_size=100),
    st.sampled_from([None, ",", ";", "\t", "|", "", "ab", '"', "\n", "\x00"]),
    st.booleans(),
)
def test_csv_to_json_options(data: bytes, delimiter: str | None, header: bool) -> None:
    try:
        rows = json.loads(csv_to_json(data, delimiter=delimiter, header=header))
    except ApiError:
        return
    assert isinstance(rows, list)


@given(json_like | st.binary(max_size=100), st.sampled_from([",", ";", "\t", "|", "", "ab", '"', "\r"]), st.booleans())
def test_json_to_csv_options(data: bytes, delimiter: str, escape_formulas: bool) -> None:
    result_or_api_error(lambda: json_to_csv(data, delimiter=delimiter, escape_formulas=escape_formulas))


@given(json_like | st.binary(max_size=100), st.integers(min_value=-2, max_value=12))
def test_json_format_and_minify(data: bytes, indent: int) -> None:
    try:
        formatted = format_json(data, indent=indent)
    except ApiError:
        return
    assert json.loads(formatted) == json.loads(minify_json(data))


@given(st.text(alphabet="ABCabc0123+/-_= \r\n\t%", max_size=60).map(str.encode) | st.binary(max_size=60))
def test_base64_variants(text: bytes) -> None:
    result_or_api_error(lambda: decode_base64(text))


@given(st.text(alphabet="%0123456789abcdefABCDEFzZ+ ~", max_size=60).map(str.encode) | st.binary(max_size=60),
       st.booleans())  # fmt: skip
def test_url_decoding(data: bytes, form: bool) -> None:
    try:
        decoded = decode_url(data, form=form)
    except ApiError:
        return
    assert decode_url(encode_url(decoded, form=form), form=form) == decoded


@given(st.binary(max_size=300))
def test_text_endpoints_on_any_bytes(data: bytes) -> None:
    result_or_api_error(lambda: count_text(data))
    result_or_api_error(lambda: markdown_to_html(data))
    result_or_api_error(lambda: detect_type(data))


@given(st.text(max_size=60), st.text(max_size=60), st.integers(min_value=-3, max_value=20_000))
def test_diff_options(a: str, b: str, context: int) -> None:
    result_or_api_error(lambda: diff_texts(a, b, context=context))
