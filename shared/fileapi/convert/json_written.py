"""JSON written once, where the result is made: a converter's large arrays kept as their JSON text.

A conversion worker hands its result to the web process pickled, and the route writes it as the answer. A
list of 80,000 small dicts costs 22 ms to pickle, as much to unpickle (on the event loop) and 0.2 s to
validate against its model; the same list as JSON text is one bytes object (`JsonArray`), copied as it is
into the answer (`dumps`), and read back into Python objects only when someone indexes it (tests, a pipeline).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, TypeVar, cast

import orjson

T = TypeVar("T")


class JsonArray(Sequence[T]):
    """A JSON array kept as its UTF-8 text; a read-only sequence of its items, parsed on first use."""

    __slots__ = ("_items", "text")

    def __init__(self, text: bytes) -> None:
        """:param text: a JSON array, as orjson writes it (the caller's invariant; `items` checks it)."""
        self.text = text
        self._items: list[T] | None = None

    def items(self) -> list[T]:
        """The array's items as Python objects (parsed once)."""
        if self._items is None:
            parsed = orjson.loads(self.text)
            if not isinstance(parsed, list):
                raise TypeError("a JsonArray holds a JSON array")
            self._items = cast(list[T], parsed)
        return self._items

    def __len__(self) -> int:
        return len(self.items())

    def __getitem__(self, index: Any) -> Any:
        return self.items()[index]

    def __iter__(self) -> Iterator[T]:
        return iter(self.items())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, JsonArray):
            return self.text == other.text or self.items() == other.items()
        return isinstance(other, list) and self.items() == other

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return f"JsonArray({self.text[:60]!r}{'...' if len(self.text) > 60 else ''})"

    def __reduce__(self) -> tuple[type[JsonArray[T]], tuple[bytes]]:
        return JsonArray, (self.text,)  # pickled as its text alone, never as parsed items


def dumps(value: Any) -> bytes:
    """`value` (dicts, lists, dataclasses, str, int, float, bool, None; `JsonArray`s as their text) as JSON.

    :raises TypeError: a value of another type (orjson.JSONEncodeError, a TypeError).
    """
    return orjson.dumps(value, default=_written)


def _written(value: Any) -> Any:
    if isinstance(value, JsonArray):
        return orjson.Fragment(value.text)
    raise TypeError  # orjson names the type: "Type is not JSON serializable: object"
