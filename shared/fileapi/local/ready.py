"""Say that the local API is up only once it answers: `fileapi run` prints its banner from here."""

from __future__ import annotations

import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import TextIO

POLL_SECONDS = 0.02  # between two tries of /health: the banner comes at most this late after the port answers


def answers(base_url: str, *, timeout_seconds: float = 1.0) -> bool:
    """Whether GET `base_url`/health answers 200 now (False while nothing listens or the server starts)."""
    try:
        with urllib.request.urlopen(f"{base_url}/health", timeout=timeout_seconds) as response:  # noqa: S310 (our own)
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def print_when_serving(base_url: str, lines: Sequence[str], *, out: TextIO | None = None) -> threading.Thread:
    """Print `lines` to `out` (default stdout) once `base_url`/health answers 200, from a daemon thread
    started here (it ends with the process when the server never comes up, e.g. its port is taken).

    :param base_url: the server's base URL, e.g. http://127.0.0.1:3000.
    :param lines: the banner, printed together and flushed.
    """

    def wait_then_print() -> None:
        while not answers(base_url):
            time.sleep(POLL_SECONDS)
        stream = out if out is not None else sys.stdout
        stream.write("".join(f"{line}\n" for line in lines))
        stream.flush()

    thread = threading.Thread(target=wait_then_print, name="fileapi-ready", daemon=True)
    thread.start()
    return thread
