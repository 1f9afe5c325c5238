"""JSON pretty-printing and minifying that keep the document's text exact.

Parsing is strict RFC 8259 (orjson validates): no NaN or Infinity, no comments, no trailing
commas, UTF-8 only, nesting at most 1024 deep. The output is the input's own tokens re-spaced: key
order, duplicate keys, the text of strings (escapes such as ``\\u00e9`` or ``\\/`` stay as written)
and of numbers (``1.10``, ``1.0e+2``, ``-0``, 30-digit integers) never change.

How it stays fast without a Python loop per token: the text is cut at its string quotes (``bytes.split``,
with escaped quotes and backslashes first swapped for bytes that valid JSON cannot hold raw), so the
pieces alternate between the structure (punctuation, numbers, literals, white space) and the strings.
Minify deletes white space from the structure pieces only. Format takes the layout (line breaks and
indentation) from orjson's indented output of the parsed value, whose pieces line up one for one with
the input's, and puts the input's own strings and numbers back into it. Where orjson's value has
fewer strings than the text (duplicate keys, of which a dict keeps one), every string is first
renamed to its ordinal so that no key repeats. Only documents nested deeper than orjson writes (254
levels) go through a token-by-token loop.
"""

from __future__ import annotations

import itertools
import re

import orjson

from fileapi.convert import payload
from fileapi.convert.data_options import MAX_INDENT
from fileapi.errors import InvalidInput

_UTF8_BOM = b"\xef\xbb\xbf"
_WHITESPACE = b" \t\n\r"
# Escaped backslashes and quotes, swapped for bytes no valid JSON text holds raw, so that every
# remaining '"' starts or ends a string. Left to right, '\\\\' first: that is how JSON reads them.
_ESCAPED_BACKSLASH, _ESCAPED_QUOTE = b"\x01", b"\x02"
_SEPARATOR = b"\x00"  # joins the structure pieces while they are edited as one text
_NUMBER = re.compile(rb"-?[0-9][0-9.eE+\-]*")
_NUMBER_SPLIT = re.compile(rb"(-?[0-9][0-9.eE+\-]*)")
_TOKEN = re.compile(rb'"(?:[^"\\]++|\\.)*+"|[{}\[\],:]|[^\s{}\[\],:"]+')


def parse_json(data: bytes) -> object:
    """Parse strict JSON (RFC 8259) from UTF-8 bytes; one leading BOM is ignored.

    :raises InvalidInput: not valid JSON (the message gives orjson's reason and position).
    """
    try:
        return orjson.loads(_strip_bom(data))
    except orjson.JSONDecodeError as exc:
        raise InvalidInput(f"not valid JSON: {exc}") from None


def format_json(data: bytes, *, indent: int = 2) -> bytes:
    """Pretty-print a JSON document with `indent` spaces per level (1..8).

    Every token keeps its text (see the module's docstring); empty objects and arrays stay ``{}``
    and ``[]``; a key is followed by ``": "``. The result ends with a newline.

    :raises InvalidInput: not valid JSON, or indent outside 1..8.
    """
    if not 1 <= indent <= MAX_INDENT:
        raise InvalidInput(f"indent must be 1..{MAX_INDENT}, not {indent}")
    body = _strip_bom(data)
    value = parse_json(body)
    payload.check(
        "the formatted JSON",
        formatted_size(body, indent),
        binary=False,
        hint="each level of nesting indents every line below it: use a smaller indent or json-minify",
    )
    laid_out = _dump(value, orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
    if laid_out is None:
        return _respace(body, indent) + b"\n"
    if indent == 2 and _same_tokens(body, laid_out):
        return laid_out  # orjson wrote every string and number as the input has it
    source = _split_strings(body)
    target = _split_strings(laid_out)
    if len(target) != len(source):  # duplicate keys: lay out a copy whose strings are all different
        numbered = list(source)
        numbered[1::2] = [b"%d" % position for position in range(len(source) // 2)]
        laid_out = _dump(orjson.loads(_join_strings(numbered)), orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
        if laid_out is None:
            return _respace(body, indent) + b"\n"
        target = _split_strings(laid_out)
    structure = _SEPARATOR.join(target[0::2])
    written = _SEPARATOR.join(source[0::2]).translate(None, _WHITESPACE)
    if structure.translate(None, _WHITESPACE) != written:
        numbers = _NUMBER.findall(written)
        pieces = _NUMBER_SPLIT.split(structure)
        if len(pieces) // 2 != len(numbers):
            return _respace(body, indent) + b"\n"
        pieces[1::2] = numbers
        structure = b"".join(pieces)
    if indent != 2:
        structure = structure.replace(b"  ", b" " * indent)  # structure pieces hold no strings
    target[0::2] = structure.split(_SEPARATOR)
    target[1::2] = source[1::2]
    return _join_strings(target)


# Bytes by their change of depth, and which ones end a line in the indented layout.
_DEPTH_STEP = [0] * 256
_DEPTH_STEP[ord("[")] = _DEPTH_STEP[ord("{")] = 1
_DEPTH_STEP[ord("]")] = _DEPTH_STEP[ord("}")] = -1
_BREAKS = [0] * 256
for _byte in b"[]{},":
    _BREAKS[_byte] = 1
_NOT_PUNCTUATION = bytes(byte for byte in range(256) if byte not in b"[]{},:")


def formatted_size(body: bytes, indent: int) -> int:
    """The size of valid JSON `body` laid out with `indent` spaces per level, without laying it out.

    Every line break is followed by the indentation of the depth after the bracket or comma it follows
    (or, for a closing bracket, precedes); the walk over brackets and commas runs in C (`accumulate`,
    `compress`), so that nesting that makes a short text very long is measured, not written.
    """
    protected = _protect(body)
    pieces = protected.split(b'"')
    structure = _SEPARATOR.join(pieces[0::2]).translate(None, _WHITESPACE)  # a separator where a string was
    escapes = len(body) - len(protected)  # each escaped quote or backslash was written with 2 bytes
    strings = sum(map(len, pieces[1::2])) + escapes + 2 * (len(pieces) // 2)
    punctuation = structure.replace(b"[]", b"").replace(b"{}", b"").translate(None, _NOT_PUNCTUATION)
    depths = itertools.accumulate(_DEPTH_STEP[byte] for byte in punctuation)
    breaks = itertools.compress(depths, (_BREAKS[byte] for byte in punctuation))
    lines = 0
    indentation = 0
    for depth in breaks:
        lines += 1
        indentation += depth
    colons = punctuation.count(b":")
    return len(structure) - len(pieces) // 2 + strings + colons + lines + indent * indentation + 1


def minify_json(data: bytes) -> bytes:
    """Remove all insignificant white space from a JSON document (every token kept as written).

    :raises InvalidInput: not valid JSON.
    """
    body = _strip_bom(data)
    value = parse_json(body)
    compact = _dump(value)
    if compact is not None and _same_tokens(body, compact):
        return compact
    pieces = _split_strings(body)
    pieces[0::2] = _SEPARATOR.join(pieces[0::2]).translate(None, _WHITESPACE).split(_SEPARATOR)
    return _join_strings(pieces)


def _dump(value: object, option: int = 0) -> bytes | None:
    """orjson's serialisation, or None where it gives up (it nests 254 levels at most, parsing 1024)."""
    try:
        return orjson.dumps(value, option=option)
    except orjson.JSONEncodeError:
        return None


def _strip_bom(data: bytes) -> bytes:
    return data[len(_UTF8_BOM) :] if data.startswith(_UTF8_BOM) else data


def _protect(text: bytes) -> bytes:
    if b"\\" in text:
        text = text.replace(b"\\\\", _ESCAPED_BACKSLASH).replace(b'\\"', _ESCAPED_QUOTE)
    return text


def _split_strings(text: bytes) -> list[bytes]:
    """Valid JSON cut at its string quotes: structure at even positions, string contents at odd ones."""
    return _protect(text).split(b'"')


def _join_strings(pieces: list[bytes]) -> bytes:
    text = b'"'.join(pieces)
    if _ESCAPED_BACKSLASH in text or _ESCAPED_QUOTE in text:
        text = text.replace(_ESCAPED_QUOTE, b'\\"').replace(_ESCAPED_BACKSLASH, b"\\\\")
    return text


def _same_tokens(body: bytes, written: bytes) -> bool:
    """True when `written` (orjson's output of `body`'s value) has exactly `body`'s tokens.

    Both are valid JSON. With as many strings in each, no duplicate key was dropped, so the tokens
    line up one for one; then the texts without any white space are equal only if every string and
    number is written the same (strings differ in escapes, never only in raw spaces).
    """
    source, target = _protect(body), _protect(written)
    return source.count(b'"') == target.count(b'"') and source.translate(None, _WHITESPACE) == target.translate(
        None, _WHITESPACE
    )


def _respace(body: bytes, indent: int) -> bytes:
    """Re-space the tokens of valid JSON `body` with `indent` spaces per level, one token at a time."""
    out: list[bytes] = []
    emit = out.append
    depth = 0
    pad = b" " * indent
    previous = b""
    for token in _TOKEN.findall(body):
        first = token[:1]
        if first in b"{[" and len(token) == 1:
            emit(token)
            depth += 1
            emit(b"\n" + pad * depth)
        elif first in b"}]" and len(token) == 1:
            depth -= 1
            if previous in (b"{", b"["):
                out.pop()  # keep empty containers on one line
            else:
                emit(b"\n" + pad * depth)
            emit(token)
        elif token == b",":
            emit(b",\n" + pad * depth)
        elif token == b":":
            emit(b": ")
        else:
            emit(token)
        previous = token
    return b"".join(out)
