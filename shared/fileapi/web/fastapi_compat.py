"""Declaring routes without importing pydantic.v1.

FastAPI 0.165 asks, for every parameter and answer of every route it declares, whether the annotation is a
Pydantic v1 model (to refuse it), and imports `pydantic.v1` to ask: about 45 ms of every function's cold start
(`make bench`'s cold-import rows), though nothing here uses v1. A class can only be a v1 model if
`pydantic.v1` has been imported, so while it has not, the answer is no without importing it; once anything has
imported it, FastAPI's own check runs.

This is the project's one use of a private module of a framework (`fastapi._compat.shared`, which FastAPI may
rename or remove; tests/build/test_framework_imports.py allows it here alone). It is looked up by name and left
alone when it is not there: FastAPI then declares routes its own way, 45 ms slower at a cold start and otherwise
the same. Imported by the web layer before any route is declared.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any

PRIVATE_MODULE = "fastapi._compat.shared"
CHECK = "is_pydantic_v1_model_class"


def skip_pydantic_v1_import() -> bool:
    """Answer FastAPI's "is this a Pydantic v1 model?" without importing pydantic.v1 while nothing has; False
    (and nothing changed) when this FastAPI has no such check to answer."""
    try:
        shared = importlib.import_module(PRIVATE_MODULE)
        fastapi_check: Callable[[Any], bool] = getattr(shared, CHECK)
    except (ImportError, AttributeError):
        return False
    if getattr(fastapi_check, "__module__", None) == __name__:
        return True  # already answered by this module

    def is_v1_model_class(cls: Any) -> bool:
        return "pydantic.v1" in sys.modules and fastapi_check(cls)

    setattr(shared, CHECK, is_v1_model_class)
    return True


skip_pydantic_v1_import()
