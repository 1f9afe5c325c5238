"""How often a second library rescued a file the first could not read (process-wide counts).

Converters call `record` when a fallback succeeds; `make fuzz-files` prints the counts after a
sweep, which is how each fallback's coverage of the corpus is measured. Nothing else reads them.
"""

from __future__ import annotations

import threading
from collections import Counter

_lock = threading.Lock()
_rescued: Counter[str] = Counter()


def record(name: str) -> None:
    """Count one file rescued by the fallback `name` (e.g. 'pdfium -> pypdf')."""
    with _lock:
        _rescued[name] += 1


def counts() -> dict[str, int]:
    """Files rescued so far, by fallback."""
    with _lock:
        return dict(_rescued)
