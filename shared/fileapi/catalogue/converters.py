"""A converter named by its module and function, imported on its first call.

A family's module declares its conversions at every cold start of its function, but a route needs its
converter only when a request comes: a `Named` converter keeps the converter's module (its regular
expressions, tables and dataclasses, 0.5-2 ms each, `make bench`'s cold-import rows) off the cold path. It
travels to a conversion worker as a module-level function does, by its module and name, and the worker gets
the function itself. Standard library only: a worker imports this module to unpickle one.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def imported(module: str, name: str) -> Callable[..., Any]:
    """The function `name` of `module` (imported now)."""
    function: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return function


class Named:
    """The converter `name` of `module`: called, it imports `module` (once) and calls the function; pickled, it
    is that function's reference, so a worker unpickles the function itself.

    :param module: the converter's module, e.g. `fileapi.convert.color`.
    :param name: the module-level function's name, e.g. `convert_color`.
    """

    def __init__(self, module: str, name: str) -> None:
        self.__module__ = module
        self.__name__ = self.__qualname__ = name
        self._function: Callable[..., Any] | None = None

    @property
    def function(self) -> Callable[..., Any]:
        """The converter itself (its module imported on first use)."""
        if self._function is None:
            self._function = imported(self.__module__, self.__name__)
        return self._function

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.function(*args, **kwargs)

    def __reduce__(self) -> tuple[Callable[..., Any], tuple[str, str]]:
        return imported, (self.__module__, self.__name__)

    def __repr__(self) -> str:
        return f"Named({self.__module__!r}, {self.__name__!r})"
