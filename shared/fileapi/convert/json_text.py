"""JSON pretty-printing and minifying that keep the document exact.

Parsing is strict RFC 8259 (orjson): no NaN or Infinity, no comments, no trailing
commas, UTF-8 only, nesting at most 1024 deep. Key order, duplicate keys, strings and
numbers come out as they went in: when every number of the document is already in the
form orjson writes, orjson formats it (fast path); otherwise the document's own tokens
are re-spaced one by one, so that ``1.10``, ``1e5`` and 30-digit integers keep their text.
"""

from __future__ import annotations

import re

import orjson

from fileapi.errors import InvalidInput

_UTF8_BOM = b"\xef\xbb\xbf"
_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"')
_NUMBER = re.compile(rb"-?[0-9][0-9.eE+\-]*")
_TOKEN = re.compile(rb'"(?:[^"\\]++|\\.)*+"|[{}\[\],:]|[^\s{}\[\],:"]+')
_WHITESPACE_OUTSIDE_STRINGS = re.compile(rb'("(?:[^"\\]++|\\.)*+")|[ \t\n\r]+')
_SAFE_INT = re.compile(rb"-?(?:0|[1-9][0-9]{0,17})")

MAX_INDENT = 8


def parse_json(data: bytes) -> object:
    """Parse strict JSON (RFC 8259) from UTF-8 bytes; one leading BOM is ignored.

    :raises InvalidInput: not valid JSON (the message gives orjson's reason and position).
    """
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM) :]
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise InvalidInput(f"not valid JSON: {exc}") from None


def format_json(data: bytes, *, indent: int = 2) -> bytes:
    """Pretty-print a JSON document with `indent` spaces per level (1..8).

    Key order, Unicode (written as UTF-8, not escaped) and number text are preserved;
    empty objects and arrays stay ``{}`` and ``[]``. The result ends with a newline.

    :raises InvalidInput: not valid JSON, or indent outside 1..8.
    """
    if not 1 <= indent <= MAX_INDENT:
        raise InvalidInput(f"indent must be 1..{MAX_INDENT}, not {indent}")
    body = _strip_bom(data)
    value = parse_json(body)
    if indent == 2 and _numbers_are_canonical(body):
        fast = _dump(value, orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
        if fast is not None:
            return fast
    return _respace(body, indent) + b"\n"


def minify_json(data: bytes) -> bytes:
    """Remove all insignificant white space from a JSON document (strings and numbers kept as written).

    :raises InvalidInput: not valid JSON.
    """
    body = _strip_bom(data)
    value = parse_json(body)
    fast = _dump(value) if _numbers_are_canonical(body) else None
    return fast if fast is not None else _WHITESPACE_OUTSIDE_STRINGS.sub(rb"\1", body)


def _dump(value: object, option: int = 0) -> bytes | None:
    """orjson's serialisation, or None where it gives up (it nests 254 levels at most, parsing 1024)."""
    try:
        return orjson.dumps(value, option=option)
    except orjson.JSONEncodeError:
        return None


def _strip_bom(data: bytes) -> bytes:
    return data[len(_UTF8_BOM) :] if data.startswith(_UTF8_BOM) else data


def _numbers_are_canonical(body: bytes) -> bool:
    """True when orjson would write every number of `body` (valid JSON) exactly as it stands."""
    for token in set(_NUMBER.findall(_STRING.sub(b'""', body))):
        if _SAFE_INT.fullmatch(token):
            if token == b"-0":
                return False
            continue
        if orjson.dumps(float(token)) != token:
            return False
    return True


def _respace(body: bytes, indent: int) -> bytes:
    """Re-space the tokens of valid JSON `body` with `indent` spaces per level."""
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
