"""What goes to a worker and what comes back: a job (a converter and its arguments) and its outcome."""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fileapi.errors import ApiError

# The handshake a worker sends once its modules are imported and its limits set.
READY = b"ready"


@dataclass(frozen=True)
class Job:
    """One conversion: `function(*args, **kwargs)` within `seconds`, its result within `max_response_bytes`.
    `function` travels by reference (module and name), so it must be a module-level function of `fileapi`."""

    function: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    seconds: float
    max_response_bytes: int


@dataclass(frozen=True)
class Done:
    """The conversion's result."""

    value: Any


@dataclass(frozen=True)
class Refused:
    """The converter refused the input with an ApiError (400, 413...): the answer the caller gets."""

    error: ApiError


@dataclass(frozen=True)
class OutOfMemory:
    """The conversion ran out of the worker's address space (the worker exits after saying so)."""


@dataclass(frozen=True)
class Failed:
    """An exception the converter does not raise on purpose: its type and frames (never its message, which may
    quote the input); `unprocessable` when it is the library giving up on the input (a Rust panic, Python's
    recursion limit) rather than a fault of ours."""

    exception_type: str
    frames: tuple[str, ...]
    unprocessable: bool


Outcome = Done | Refused | OutOfMemory | Failed

# A Rust library's panic (PyO3's PanicException) and Python's own recursion limit: the input, not our code.
_GIVING_UP = frozenset({"PanicException", "RecursionError"})


def failed(error: BaseException) -> Failed:
    """The Failed outcome of an unexpected exception."""
    frames = tuple(
        f"{frame.filename}:{frame.lineno} {frame.name}" for frame in traceback.extract_tb(error.__traceback__)
    )
    name = type(error).__name__
    return Failed(exception_type=name, frames=frames[-8:], unprocessable=name in _GIVING_UP)
