"""Jobs for conversion-worker tests: module-level functions a worker imports by name, each ending one way."""

from __future__ import annotations

import ctypes
import os
import signal
import time

from fileapi.convert import deadline
from fileapi.errors import InvalidInput


def echo(data: bytes, *, suffix: bytes = b"") -> bytes:
    """The bytes back, with `suffix`."""
    return data + suffix


def pid() -> int:
    """The worker's process id."""
    return os.getpid()


def refuse(message: str) -> None:
    """A converter's refusal."""
    raise InvalidInput(message)


def fail() -> None:
    """An exception no converter raises on purpose."""
    raise KeyError("a bug")


def segfault() -> None:
    """A native crash: a read through a null pointer."""
    ctypes.string_at(0)


def abort() -> None:
    """A native abort (SIGABRT), as a C library's assertion gives."""
    os.abort()


def allocate(megabytes: int) -> int:
    """Allocate and touch `megabytes` MiB; their count."""
    blocks = [bytearray(1 << 20) for _ in range(megabytes)]
    return len(blocks)


def allocate_then_abort(megabytes: int) -> None:
    """Allocate and touch `megabytes` MiB, then abort (SIGABRT), as PDFium does when an allocation fails."""
    blocks = [bytearray(1 << 20) for _ in range(megabytes)]
    if blocks is not None:  # held, resident, until the abort
        os.abort()


def spin(seconds: float) -> float:
    """Busy CPU for `seconds` without checking the budget (native code that does not stop); the time spent."""
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        pass
    return time.monotonic() - started


def burn(cpu_seconds: float) -> float:
    """Use `cpu_seconds` of this process's CPU time (however long that takes on a busy machine)."""
    started = time.process_time()
    while time.process_time() - started < cpu_seconds:
        pass
    return time.process_time() - started


def sleep_checking(seconds: float) -> None:
    """Wait `seconds`, checking the conversion budget every 50 ms as converters do between steps."""
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        time.sleep(0.05)
        deadline.check()


def read_for_ten_seconds(data: bytes, **_: object) -> list[dict[str, str]]:
    """A barcode reader that would work for 10 s without checking its budget."""
    spin(10)
    return []


def killed_by_the_kernel() -> None:
    """The worker killed by SIGKILL, as the kernel's out-of-memory killer does."""
    os.kill(os.getpid(), signal.SIGKILL)


def render_unpredicted(data: bytes) -> int:
    """Render a PDF's first page with PDFium directly, without the cost prediction (as a file no prediction
    catches would be); its width."""
    import pypdfium2 as pdfium

    return int(pdfium.PdfDocument(data)[0].render(scale=2).to_pil().width)
