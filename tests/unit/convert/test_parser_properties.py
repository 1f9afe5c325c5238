"""Every parser the project writes itself, on any input: one of the contract's errors (an ApiError) or a result
that has the parser's property (ranges inside the document, round trips, the union of keys as the header, a diff
that rebuilds its second text...), never another exception. Inputs are generated near each grammar."""

from __future__ import annotations

import base64
import contextlib
import csv
import io
import json
import re

from hypothesis import example, given
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


MEDIA_TYPE = re.compile(r"[a-z]+/[a-z0-9.+-]+")
LINES = re.compile(r"[^\n]*\n|[^\n]+$")  # lines as the diff reads them: each up to its LF, and a last one without


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
    if header:  # objects of strings, all with the header's names
        assert all(isinstance(row, dict) and all(isinstance(v, str) for v in row.values()) for row in rows)
        assert len({tuple(row) for row in rows}) <= 1
    else:  # arrays of strings
        assert all(isinstance(row, list) and all(isinstance(v, str) for v in row) for row in rows)


@given(json_like | st.binary(max_size=100), st.sampled_from([",", ";", "\t", "|", "", "ab", '"', "\r"]), st.booleans())
def test_json_to_csv_options(data: bytes, delimiter: str, escape_formulas: bool) -> None:
    try:
        written = json_to_csv(data, delimiter=delimiter, escape_formulas=escape_formulas)
    except ApiError:
        return
    objects = json.loads(data)
    names = list(dict.fromkeys(name for item in objects for name in item))  # the union of keys, first seen first
    records = list(csv.reader(io.StringIO(written.decode("utf-8"), newline=""), delimiter=delimiter))
    assert records[0] == names if names else records[:1] in ([], [[""]], [[]])
    assert len(records) == 1 + len(objects) or (not names and len(records) <= 1 + len(objects))


@given(json_like | st.binary(max_size=100), st.integers(min_value=-2, max_value=12))
def test_json_format_and_minify(data: bytes, indent: int) -> None:
    try:
        formatted = format_json(data, indent=indent)
    except ApiError:
        return
    assert json.loads(formatted) == json.loads(minify_json(data))


@given(st.text(alphabet="ABCabc0123+/-_= \r\n\t\f\v%", max_size=60).map(str.encode) | st.binary(max_size=60))
@example(b"\x0b+A")  # a vertical tab is white space
def test_base64_variants(text: bytes) -> None:
    try:
        decoded = decode_base64(text)
    except ApiError:
        return
    letters = bytes(byte for byte in text if byte not in b" \t\r\n\f\v").rstrip(b"=")  # ASCII's white space
    standard = letters.replace(b"-", b"+").replace(b"_", b"/")
    assert decoded == base64.b64decode(standard + b"=" * (-len(standard) % 4))  # either alphabet, any padding


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
    with contextlib.suppress(ApiError):
        counts = count_text(data)
        assert counts.charactersNoSpaces <= counts.characters and counts.words <= counts.characters
        assert counts.paragraphs <= counts.lines
    with contextlib.suppress(ApiError):
        assert b"<script" not in markdown_to_html(data).lower()  # raw HTML is escaped unless asked for
    with contextlib.suppress(ApiError):
        found = detect_type(data)
        assert MEDIA_TYPE.fullmatch(found.mime) and found.extension and found.description


@given(st.text(max_size=60), st.text(max_size=60), st.integers(min_value=-3, max_value=20_000))
def test_diff_options(a: str, b: str, context: int) -> None:
    try:
        diff = diff_texts(a, b, context=context)
    except ApiError:
        return
    assert diff.identical == (a == b)
    old, new = [line.rstrip("\n") for line in LINES.findall(a)], [line.rstrip("\n") for line in LINES.findall(b)]
    rebuilt: list[str] = []
    at = 0
    for hunk in diff.hunks:  # the hunks, applied to a's lines, give b's
        start = hunk.oldStart - 1 if hunk.oldLines else hunk.oldStart
        rebuilt += old[at:start]
        rebuilt += [line["text"] for line in hunk.lines if line["type"] in ("context", "added")]
        at = start + hunk.oldLines
    assert rebuilt + old[at:] == new
    assert diff.added == sum(line["type"] == "added" for hunk in diff.hunks for line in hunk.lines)
    assert diff.removed == sum(line["type"] == "removed" for hunk in diff.hunks for line in hunk.lines)
