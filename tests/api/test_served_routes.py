"""The apps serve ServedRoutes (fileapi.web.served), not FastAPI's routes: each answers as its declaration does when
FastAPI serves it (FastAPI's route, dependency solving and handler): the same match for each method and path, the
same 405 with the same Allow (no HEAD added to a GET), and the same answers to bad JSON bodies. The conversions'
bodies and options are compared in tests/api/test_binding.py."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.routing import Match

from fileapi.catalogue.registry import every
from fileapi.file_services import FileServices
from fileapi.local.template import load_function_module, load_functions
from fileapi.web.metering import MeteredRoute
from fileapi.web.served import ServedRoute
from tests.helpers import auth, route_alone


def served_routes() -> list[ServedRoute]:
    routes = []
    for spec in load_functions():
        app = getattr(load_function_module(spec), "app", None)
        served = getattr(getattr(app, "router", None), "routes", [])
        routes += [route for route in served if isinstance(route, ServedRoute)]
    return routes


ROUTES = served_routes()
# The routes other than the conversions that read a JSON body (key recovery, uploads, webhooks).
JSON_ROUTES = [
    route
    for route in ROUTES
    if route.binder.json_body is not None and not (isinstance(route, MeteredRoute) and route.counted)
]


def filled(path: str) -> str:
    return re.sub(r"{[^}]+}", "op_0123", path)


def answer(client: TestClient, method: str, path: str, body: bytes, headers: dict[str, str]) -> tuple[Any, ...]:
    response = client.request(method, path, content=body, headers=headers)
    payload = response.json() if response.content else None
    shown = {name: payload[name] for name in ("error", "message")} if isinstance(payload, dict) else payload
    return response.status_code, shown, response.headers.get("allow")


def test_every_route_of_the_apps_is_served() -> None:
    # The catalogue's conversions; account, files (and pipelines), key recovery, billing, health.
    assert len(ROUTES) == len(every()) + 4 + 7 + 2 + 1 + 3
    assert {route.path for route in JSON_ROUTES} == {
        "/v1/keys/recover",
        "/v1/keys/recover/confirm",
        "/v1/uploads",
        "/v1/webhooks",
    }


@pytest.mark.parametrize("route", ROUTES, ids=lambda route: f"{sorted(route.methods or ())} {route.path}")
def test_a_served_route_matches_as_its_declaration(route: ServedRoute) -> None:
    declaration = route.declaration()
    assert (route.path, route.name, route.methods) == (declaration.path, declaration.name, declaration.methods)
    path = filled(route.path)
    for method in ("GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS"):
        for asked in (path, f"{path}/", f"{path}\n", f"{path}x", "/v1/other"):
            scope = {"type": "http", "method": method, "path": asked, "root_path": ""}
            ours, ours_scope = route.matches(scope)
            theirs, their_scope = declaration.matches(scope)
            assert ours is theirs, (method, asked)
            if ours is not Match.NONE:
                assert ours_scope["route"] is route
                assert ours_scope["path_params"] == their_scope["path_params"]


@pytest.mark.parametrize("route", ROUTES, ids=lambda route: f"{sorted(route.methods or ())} {route.path}")
def test_a_method_a_route_does_not_serve_is_405_as_fastapi_answers(route: ServedRoute, key: str) -> None:
    ours, theirs = route_alone(route), route_alone(route.declaration())
    path = filled(route.path)
    for method in sorted({"GET", "HEAD", "POST", "PUT", "DELETE"} - set(route.methods or ())):
        got = answer(ours, method, path, b"", auth(key))
        assert got[0] == 405
        assert got == answer(theirs, method, path, b"", auth(key)), method


@pytest.mark.parametrize("route", JSON_ROUTES, ids=lambda route: route.path)
def test_a_json_route_refuses_bad_bodies_as_fastapi_does(
    api: TestClient, route: ServedRoute, key: str, files: FileServices
) -> None:
    """(`api` installs the stores the key is admitted by.)"""
    ours, theirs = route_alone(route), route_alone(route.declaration())
    method = next(iter(route.methods or ()))
    for content_type in ("application/json", "text/plain"):
        for body in (b"", b"not json {", b"{}", b"[]", b'{"email": 5, "url": 5}', b"[" * 5000 + b"]" * 5000):
            headers = {**auth(key), "Content-Type": content_type}
            got = answer(ours, method, route.path, body, headers)
            assert got[0] == 400
            assert got == answer(theirs, method, route.path, body, headers), (content_type, body[:20])
