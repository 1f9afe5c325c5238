"""Every conversion of the catalogue, by family and by path.

A function imports its own family's module only (its cold start pays for no other family's converters);
the Operations function, the pipelines, the docs and the tests take them all from here.
"""

from __future__ import annotations

import importlib
from functools import cache
from types import MappingProxyType
from typing import TYPE_CHECKING

from fileapi.errors import InvalidInput

if TYPE_CHECKING:
    from collections.abc import Mapping

    from fileapi.catalogue.declaration import Conversion

# The conversion families, each a module fileapi.catalogue.<family> and a function functions/<family>.
FAMILIES = ("codes", "data", "image", "pdf", "render", "text")


def family(name: str) -> tuple[Conversion, ...]:
    """The conversions of the family `name` (importing its module)."""
    module = importlib.import_module(f"fileapi.catalogue.{name}")
    conversions: tuple[Conversion, ...] = module.CONVERSIONS
    return conversions


def worker_modules(name: str) -> tuple[str, ...]:
    """What the family's conversion workers import before their first job."""
    module = importlib.import_module(f"fileapi.catalogue.{name}")
    modules: tuple[str, ...] = getattr(module, "WORKER_MODULES", ())
    return modules


@cache
def by_path() -> Mapping[str, Conversion]:
    """Every conversion, by its path (`/v1/pdf/rotate`)."""
    return MappingProxyType({conversion.path: conversion for name in FAMILIES for conversion in family(name)})


def every() -> tuple[Conversion, ...]:
    """Every conversion, family by family."""
    return tuple(by_path().values())


def named(name: str, *, field: str = "run") -> Conversion:
    """The conversion a pipeline stage names (`pdf/merge`, or its path `/v1/pdf/merge`).

    :raises InvalidInput: no conversion of that name; the message names `field` and the closest names.
    """
    import difflib

    path = name if name.startswith("/v1/") else f"/v1/{name}"
    found = by_path().get(path)
    if found is None:
        names = [conversion.name for conversion in every()]
        close = difflib.get_close_matches(name.removeprefix("/v1/"), names, n=1)
        hint = f"; did you mean {close[0]}?" if close else "; GET /openapi.json lists them"
        raise InvalidInput(f"{field}: no conversion {name!r}{hint}")
    return found
