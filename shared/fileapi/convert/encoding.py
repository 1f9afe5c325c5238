"""Base64 and percent-encoding (the byte-level half of the Data family)."""

from __future__ import annotations

import binascii
import re
from urllib.parse import quote, quote_plus, unquote_to_bytes

from fileapi.errors import InvalidInput

_WHITESPACE = re.compile(rb"[ \t\r\n\f\v]+")
_BAD_PERCENT = re.compile(rb"%(?![0-9A-Fa-f]{2})")
_URL_SAFE_TO_STANDARD = bytes.maketrans(b"-_", b"+/")
_URL_SAFE = b"-_"


def decode_utf8(data: bytes, *, what: str = "body", drop_bom: bool = True) -> str:
    """Decode UTF-8 text strictly.

    :param drop_bom: drop one leading byte-order mark.
    :raises InvalidInput: the bytes are not valid UTF-8 (the message gives the byte offset).
    """
    try:
        return data.decode("utf-8-sig" if drop_bom else "utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{what} is not valid UTF-8 (bad byte at offset {exc.start})") from None


def encode_utf8(text: str, *, what: str, at: bool = True) -> bytes:
    """`text` in UTF-8.

    :param at: name the character's place in `text` (not where `text` is the converter's own output).
    :raises InvalidInput: `text` holds a lone surrogate, which JSON's \\ud800 escapes allow and no UTF-8 text does.
    """
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as error:
        where = f" at character {error.start:,}" if at else ""
        raise InvalidInput(
            f"{what} holds a lone surrogate (U+{ord(text[error.start]):04X}){where}: send text that is valid Unicode"
        ) from None


def encode_base64(data: bytes, *, url_safe: bool = False, padding: bool = True) -> bytes:
    """Base64 of `data` (RFC 4648), as ASCII bytes without line breaks.

    pybase64 (libbase64's SIMD codecs) encodes 4 MB about 50x faster than the standard
    library's binascii (0.2 ms against 10 ms), with the same output.

    :param url_safe: use the URL-safe alphabet (``-`` and ``_`` for ``+`` and ``/``).
    :param padding: keep the trailing ``=`` padding.
    """
    import pybase64

    encoded = pybase64.b64encode(data, altchars=_URL_SAFE if url_safe else None)
    if not padding:
        encoded = encoded.rstrip(b"=")
    return encoded


def decode_base64(text: bytes) -> bytes:
    """Decode Base64 text in the standard or the URL-safe alphabet.

    White space anywhere and missing ``=`` padding are tolerated; mixing the two
    alphabets, characters outside them, padding in the middle and an impossible
    length are not.

    :raises InvalidInput: the text is not Base64 (the message says why).
    """
    compact = _WHITESPACE.sub(b"", text)
    has_url_safe = b"-" in compact or b"_" in compact
    if has_url_safe:
        if b"+" in compact or b"/" in compact:
            raise InvalidInput("Base64 text mixes the standard (+/) and URL-safe (-_) alphabets")
        compact = compact.translate(_URL_SAFE_TO_STANDARD)
    unpadded = compact.rstrip(b"=")
    if len(compact) - len(unpadded) > 2:
        raise InvalidInput("Base64 text has more than two '=' padding characters")
    if len(unpadded) % 4 == 1:
        raise InvalidInput(f"Base64 text has an impossible length ({len(unpadded)} characters without padding)")
    padded = unpadded + b"=" * (-len(unpadded) % 4)
    try:
        return binascii.a2b_base64(padded, strict_mode=True)
    except binascii.Error as exc:
        bad = next((i for i, c in enumerate(unpadded) if not _is_b64_char(c)), None)
        where = f" (unexpected character at position {bad})" if bad is not None else ""
        raise InvalidInput(f"not valid Base64{where}: {exc}") from None


def _is_b64_char(c: int) -> bool:
    return chr(c).isascii() and (chr(c).isalnum() or c in b"+/")


def encode_url(data: bytes, *, form: bool = False) -> bytes:
    """Percent-encode UTF-8 text (RFC 3986): everything but the unreserved characters
    ``A-Z a-z 0-9 - . _ ~`` is encoded.

    A leading byte-order mark is encoded like any other character (``%EF%BB%BF``): an encoding keeps
    every character it is given, so that decoding it gives the same bytes back.

    :param form: application/x-www-form-urlencoded style, a space becomes ``+``.
    :raises InvalidInput: the body is not UTF-8.
    """
    text = decode_utf8(data, drop_bom=False)
    encoded = quote_plus(text, safe="") if form else quote(text, safe="")
    return encoded.encode("ascii")


def decode_url(data: bytes, *, form: bool = False) -> bytes:
    """Decode percent-encoded text to UTF-8 text.

    :param form: application/x-www-form-urlencoded style, ``+`` becomes a space.
    :raises InvalidInput: a ``%`` not followed by two hex digits, or bytes that are not UTF-8.
    """
    decode_utf8(data)
    bad = _BAD_PERCENT.search(data)
    if bad:
        raise InvalidInput(f"'%' at position {bad.start()} is not followed by two hexadecimal digits")
    if form:
        data = data.replace(b"+", b" ")
    raw = unquote_to_bytes(data)
    decode_utf8(raw, what="decoded text", drop_bom=False)
    return raw
