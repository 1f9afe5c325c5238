"""The routes an operation can run: every counted metered route of the functions' apps, by path.

The Operations function imports every conversion family's app (functions/*/app.py) and indexes its routes
here; the executor then calls a route's own endpoint through the route's own binder, so an operation runs
the same validation, converter and worker call as the synchronous request it stands for.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fileapi.operations.generic import OperationRoute
from fileapi.web.metering import MeteredRoute

if TYPE_CHECKING:
    from starlette.routing import BaseRoute


def operation_routes(routes: Iterable[BaseRoute]) -> dict[str, OperationRoute]:
    """The counted metered routes among `routes`, by path."""
    found = {}
    for route in routes:
        if isinstance(route, MeteredRoute) and route.counted:
            model = route.response_model if isinstance(route.response_model, type) else None
            found[route.path] = OperationRoute(route.path, route.endpoint, route.binder, model)
    return found


def load_family_apps(functions_dir: Path, *, skip: Collection[str] = ()) -> list[Any]:
    """The FastAPI app of every function under `functions_dir` (`<family>/app.py`, but for the folders named in
    `skip`) that has one, imported as `fileapi_functions.<family>.app` (the name the local runner gives it too)."""
    apps = []
    for path in sorted(functions_dir.glob("*/app.py")):
        if path.parent.name in skip:
            continue
        name = f"fileapi_functions.{path.parent.name}.app"
        module = sys.modules.get(name)
        if module is None:
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot import {path}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
        app = getattr(module, "app", None)
        if app is not None and hasattr(app, "router"):
            apps.append(app)
    return apps


def family_routes(functions_dir: Path, *, skip: Collection[str] = ()) -> dict[str, OperationRoute]:
    """The routes an operation can run, from the apps under `functions_dir` (but for the folders in `skip`)."""
    routes: dict[str, OperationRoute] = {}
    for app in load_family_apps(functions_dir, skip=skip):
        routes.update(operation_routes(app.routes))
    return routes
