"""PDF library failures in our words, and the one place that turns them into 400 invalid_input.

qpdf (pikepdf), pdfium and pypdf each fail on damaged files in their own way and with their own
text; the client gets what is wrong with the file ("its cross-reference table is broken at offset
1234"), never the library's message.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

from fileapi.errors import ApiError, InvalidInput

_OFFSET = re.compile(r"offset (\d+)")
_OBJECT = re.compile(r"object (\d+) (\d+)")
_PROBLEMS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), text)
    for pattern, text in (
        (r"password|decrypt|encrypt", "it is encrypted in a way that cannot be opened without a password"),
        (r"xref|cross-reference|trailer|startxref", "its cross-reference table is broken"),
        (r"%%EOF|EOF marker|unexpected EOF|end of file|truncat", "it is truncated (it ends before its end marker)"),
        (r"header|not a PDF|%PDF", "it has no valid %PDF header"),
        (r"page tree|/Pages|/Kids|pages", "its page tree is broken"),
        (r"stream|decod|filter|flate|inflate|lzw|ascii85|dct", "a stream's data cannot be decoded"),
        (r"font|glyph|cmap", "a font in it is damaged"),
        (r"annot|widget|acroform|field|appearance", "its form or annotations are damaged"),
        (r"recursion|loop|cycle|depth", "its objects refer to each other in a loop"),
        (r"dictionary|array|object|token|name|string|hex", "an object in it is malformed"),
    )
)


def pdf_problem(exc: BaseException) -> str:
    """What is wrong with the PDF, from a library's exception: the kind of damage, and the offset or
    object number when the library gave one."""
    text = f"{type(exc).__name__}: {exc}"
    problem = "its structure is damaged beyond repair"
    for pattern, description in _PROBLEMS:
        if pattern.search(text):
            problem = description
            break
    where = _OFFSET.search(text)
    if where:
        return f"{problem} at offset {int(where.group(1)):,}"
    number = _OBJECT.search(text)
    if number:
        return f"{problem} (object {number.group(1)} {number.group(2)})"
    return problem


def damaged(what: str, exc: BaseException) -> InvalidInput:
    """The 400 for a PDF (`what`: 'the body', 'file 2') a library cannot process."""
    return InvalidInput(f"{what} is a damaged PDF: {pdf_problem(exc)}")


@contextmanager
def reading(what: str = "the body") -> Iterator[None]:
    """Any failure of a PDF library inside the block is the input's damage: 400, in our words.

    Our own errors (limits, deadline) pass through unchanged.
    """
    try:
        yield
    except ApiError:
        raise
    except (Exception, RecursionError) as exc:  # the libraries raise dozens of types on damaged input
        raise damaged(what, exc) from None
