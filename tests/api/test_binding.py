"""The metered routes' binding plans (web.binding) answer exactly as FastAPI's dependency solving does: every
conversion route is bound, and the same requests (good, bad, empty, not JSON, nested too deep, wrong option
values, no key) get the same status and body through both, but for the one difference web.binding makes on
purpose (a JSON route refuses a missing key before it reads the body)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest.mock import patch

import pytest
from fastapi.routing import request_response
from fastapi.testclient import TestClient

from fileapi.local.template import load_function_module, load_functions
from fileapi.web.binding import plan_of
from fileapi.web.metering import MeteredRoute, _mark_pending, metered
from tests.helpers import auth


def metered_routes() -> list[MeteredRoute]:
    routes = []
    for spec in load_functions():
        app = getattr(load_function_module(spec), "app", None)
        routes += [
            route for route in getattr(getattr(app, "router", None), "routes", []) if isinstance(route, MeteredRoute)
        ]
    return routes


CONVERSION_ROUTES = [
    route
    for route in metered_routes()
    if route.path.startswith("/v1/") and "self_service" not in str(route.dependant.dependencies)
]


@contextmanager
def fastapi_solving(routes: list[MeteredRoute]) -> Iterator[None]:
    """`routes` served by FastAPI's own handler (dependency solving) instead of their binding plans."""
    saved = [(route, route.app) for route in routes]
    with patch("fileapi.web.metering.plan_of", return_value=None):
        for route in routes:
            route.app = request_response(route.get_route_handler())
    try:
        yield
    finally:
        for route, app in saved:
            route.app = app


def test_every_conversion_route_is_bound() -> None:
    unbound = {route.path for route in metered_routes() if plan_of(route, {metered: _mark_pending}) is None}
    assert unbound == {"/v1/usage", "/v1/keys/rotate", "/v1/billing/portal"}  # they take their admission


def test_options_models_are_validated_by_the_model() -> None:
    with_model = {
        route.path: [
            field.name for field in route.dependant.query_params if hasattr(field.field_info.annotation, "model_fields")
        ]
        for route in CONVERSION_ROUTES
    }
    direct = {}
    for route in CONVERSION_ROUTES:
        plan = plan_of(route, {metered: _mark_pending})
        assert plan is not None
        direct[route.path] = [model.parameter for model in plan.query_models]
    assert direct == with_model and sum(map(len, direct.values())) == 14


def requests_for(route: MeteredRoute) -> list[tuple[str, dict[str, str], bytes, str | None]]:
    """(query string, headers, body, key?) cases for `route`: its options given wrong values, bodies of each kind."""
    names = [field.alias for field in route.dependant.query_params]
    model_fields = [
        (info.alias or name)
        for field in route.dependant.query_params
        for name, info in getattr(field.field_info.annotation, "model_fields", {}).items()
    ]
    wrong = "&".join(f"{name}=zz%00z" for name in [*names, *model_fields]) + "&unknown=1"
    deep = b"[" * 5000 + b"]" * 5000
    cases: list[tuple[str, dict[str, str], bytes, str | None]] = []
    for content_type in ("application/json", "text/plain", "application/octet-stream"):
        for body in (b"", b"{}", b'"hello world"', b"not json {", deep, b'{"text": "hi", "color": "red"}'):
            cases.append(("", {"Content-Type": content_type}, body, "key"))
    cases.append((wrong, {"Content-Type": "application/json"}, b"{}", "key"))
    cases.append((wrong, {"Content-Type": "application/octet-stream"}, b"\x89PNG\r\n", "key"))
    cases.append(("", {}, b"", None))
    return cases


def answers(api: TestClient, route: MeteredRoute, key: str) -> list[tuple[int, Any]]:
    method = next(iter(route.methods or ()))
    got = []
    for query, headers, body, with_key in requests_for(route):
        sent = {**headers, **(auth(key) if with_key else {})}
        response = api.request(method, f"{route.path}?{query}", content=body, headers=sent)
        try:
            payload: Any = response.json()
            payload = {name: payload[name] for name in ("error", "message") if name in payload} or payload
        except (ValueError, RecursionError):
            payload = response.content
        got.append((response.status_code, payload))
    return got


@pytest.mark.parametrize("route", CONVERSION_ROUTES, ids=lambda route: route.path)
def test_a_bound_route_answers_as_fastapi_would(api: TestClient, key: str, route: MeteredRoute) -> None:
    bound = answers(api, route, key)
    with fastapi_solving([route]):
        solved = answers(api, route, key)
    assert bound == solved


@pytest.mark.parametrize(
    "route", [route for route in CONVERSION_ROUTES if route.dependant.body_params], ids=lambda route: route.path
)
def test_a_json_route_refuses_a_missing_key_before_reading_the_body(api: TestClient, route: MeteredRoute) -> None:
    headers = {"Content-Type": "application/json"}
    response = api.post(route.path, content=b"not json", headers=headers)
    assert (response.status_code, response.json()["error"]) == (401, "unauthorized")
    with fastapi_solving([route]):
        solved = api.post(route.path, content=b"not json", headers=headers)
    assert (solved.status_code, solved.json()["error"]) == (400, "invalid_input")  # FastAPI's order, not ours
