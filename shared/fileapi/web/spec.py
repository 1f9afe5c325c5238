"""The API's OpenAPI document, generated from the functions' apps into the code layer.

`fileapi openapi --write` regenerates `fileapi/openapi.json`; a test fails when it is stale.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

OPENAPI_PATH = Path(__file__).resolve().parent.parent / "openapi.json"


@lru_cache(maxsize=1)
def load_openapi_bytes() -> bytes:
    """The committed OpenAPI document, read once per process."""
    return OPENAPI_PATH.read_bytes()
