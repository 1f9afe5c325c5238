"""Declaring routes without importing pydantic.v1.

FastAPI 0.165 asks, for every parameter and answer of every route it declares, whether the annotation is a
Pydantic v1 model (to refuse it), and imports `pydantic.v1` to ask: about 45 ms of every function's cold start
(`make bench`'s cold-import rows), though nothing here uses v1. A class can only be a v1 model if
`pydantic.v1` has been imported, so while it has not, the answer is no without importing it; once anything has
imported it, FastAPI's own check runs. Imported by the web layer before any route is declared.
"""

from __future__ import annotations

import sys
from typing import Any

from fastapi._compat import shared

_fastapi_check = shared.is_pydantic_v1_model_class


def _is_v1_model_class(cls: Any) -> bool:
    return "pydantic.v1" in sys.modules and _fastapi_check(cls)


shared.is_pydantic_v1_model_class = _is_v1_model_class
