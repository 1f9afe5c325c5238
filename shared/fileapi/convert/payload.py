"""The response payload limit of the conversion running in this context.

The web layer sets it (`response_limit`) from the same setting it checks responses against, so a
converter can refuse a result that cannot fit before spending the time to make it: images predict
their encoded size from a sample of rows (`image_size`), and every result is checked once made
(`check`). Outside a limit (scripts, tests of converters) nothing is refused.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from contextvars import ContextVar, Token

from fileapi.errors import TooLarge

_limit: ContextVar[int | None] = ContextVar("response_limit", default=None)


def response_limit(max_bytes: int) -> AbstractContextManager[None]:
    """Run the block with results limited to `max_bytes` in the response payload."""
    return _Limited(max_bytes)


class _Limited(AbstractContextManager[None]):
    """`response_limit`'s block (a class: every in-process conversion enters one, and a generator's context
    manager costs more than a small conversion's work)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.token: Token[int | None] | None = None

    def __enter__(self) -> None:
        self.token = _limit.set(self.max_bytes)

    def __exit__(self, *_: object) -> None:
        assert self.token is not None
        _limit.reset(self.token)


def limit() -> int | None:
    """The payload limit in bytes of this context (None: no limit)."""
    return _limit.get()


def payload_bytes(size: int, *, binary: bool = True) -> int:
    """Bytes `size` raw bytes take in the response: binary bodies travel base64-encoded."""
    return (size + 2) // 3 * 4 if binary else size


def too_large(what: str, size: int, *, binary: bool = True, hint: str) -> TooLarge:
    """The 413 for a result of `size` raw bytes, naming the limit and what would fit (`hint`)."""
    max_bytes = limit() or 0
    carried = payload_bytes(size, binary=binary)
    encoded = f" ({carried / 1e6:.1f} MB base64-encoded)" if binary else ""
    return TooLarge(
        f"{what} would be about {size / 1e6:.1f} MB{encoded}, over the response limit of {max_bytes:,} bytes; {hint}"
    )


def check(what: str, size: int, *, binary: bool = True, hint: str) -> None:
    """:raises TooLarge: `size` raw bytes do not fit the payload limit of this context."""
    max_bytes = limit()
    if max_bytes is not None and payload_bytes(size, binary=binary) > max_bytes:
        raise too_large(what, size, binary=binary, hint=hint)
