"""Inputs that reach a conversion worker as a file: the request process passes the path, the worker reads it.

An operation's input may be gigabytes on ephemeral storage. Passed as bytes, it would sit whole in the
process that runs the operation and cross the worker's socket; as a `FileInput` only its path is pickled,
and the worker reads the file just before the converter runs (counted against the worker's memory limit,
so a file too large for it is 413 `too_large` like any other conversion that runs out of memory).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class FileInput:
    """A converter's bytes argument that is a file: `path` is pickled, the bytes are read in the worker."""

    path: str

    def read(self) -> bytes:
        """The file's bytes.

        :raises OSError: the file cannot be read.
        """
        return Path(self.path).read_bytes()


def has_file_inputs(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> bool:
    """Whether any argument is a `FileInput`, or a list of them (merge's files)."""
    # Loops, and isinstance of either kind first: every in-process conversion asks (a generator over the arguments
    # cost about twice as long), and most arguments are neither.
    for value in args:
        if isinstance(value, _FILE_OR_LIST) and _is_file(value):
            return True
    for value in kwargs.values():  # noqa: SIM110 (the loop, not a generator: see above)
        if isinstance(value, _FILE_OR_LIST) and _is_file(value):
            return True
    return False


def read_file_inputs(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The arguments with every `FileInput` (alone or in a list) replaced by its bytes (the others as they are)."""
    if not has_file_inputs(args, kwargs):
        return args, kwargs
    return tuple(map(_read, args)), {name: _read(value) for name, value in kwargs.items()}


_FILE_OR_LIST = (FileInput, list)


def _is_file(value: Any) -> bool:
    return isinstance(value, FileInput) or (
        isinstance(value, list) and bool(value) and all(isinstance(item, FileInput) for item in value)
    )


def _read(value: Any) -> Any:
    if isinstance(value, FileInput):
        return value.read()
    if _is_file(value):
        return [item.read() for item in value]
    return value
