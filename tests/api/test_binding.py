"""The metered routes bind their arguments (fileapi.web.binding) as FastAPI's own dependency solving does: the same
requests (good, bad, empty, not JSON, nested too deep, wrong option values, no key) get the same status and error
through both, at the framework versions pinned below, but for the three differences made on purpose: a JSON route
refuses a missing key before it reads the body, a query parameter given twice is 400 (FastAPI takes the last), and
so is one the endpoint does not take (FastAPI ignores it: tests/api/test_unknown_options.py)."""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

import pytest
from fastapi.testclient import TestClient

from fileapi.catalogue.declaration import Reads
from fileapi.catalogue.registry import every
from fileapi.local.template import load_function_module, load_functions
from fileapi.metering.meter import Admission
from fileapi.models import QueryOptions
from fileapi.web.binding import Binder
from fileapi.web.metering import MeteredRoute, SelfServiceRoute
from tests.helpers import auth, route_alone

# The versions the binder's answers were compared with (this module's tests); a new version is checked again.
CHECKED_AGAINST = {"fastapi": "0.165.0", "pydantic": "2.14.4", "starlette": "1.10.0"}


def metered_routes() -> list[MeteredRoute]:
    routes = []
    for spec in load_functions():
        app = getattr(load_function_module(spec), "app", None)
        routes += [
            route for route in getattr(getattr(app, "router", None), "routes", []) if isinstance(route, MeteredRoute)
        ]
    return routes


CONVERSION_ROUTES = [route for route in metered_routes() if not isinstance(route, SelfServiceRoute)]


def test_the_binder_was_checked_against_the_installed_frameworks() -> None:
    assert {name: version(name) for name in CHECKED_AGAINST} == CHECKED_AGAINST


def test_every_metered_endpoint_is_bound() -> None:
    binders = {route.path: route.binder for route in metered_routes()}
    # The catalogue's conversions; usage and its chart, key rotation, billing portal; uploads, operations,
    # webhooks and pipelines.
    assert len(binders) == len(every()) + 4 + 5
    assert {path for path, binder in binders.items() if Admission in binder.provided} == {
        "/v1/usage",
        "/v1/usage/chart",
        "/v1/keys/rotate",
        "/v1/billing/portal",
        "/v1/uploads",
        "/v1/operations/{operation_id}",
        "/v1/webhooks",
        "/v1/webhooks/{webhook_id}",
        "/v1/pipelines",
    }
    assert {path for path, binder in binders.items() if binder.path} == {
        "/v1/operations/{operation_id}",
        "/v1/webhooks/{webhook_id}",
    }


def test_options_models_are_validated_by_the_model() -> None:
    models = {route.path: [model.argument for model in Binder.of(route.endpoint).models] for route in CONVERSION_ROUTES}
    declared = {
        route.path: [
            field.name
            for field in route.declaration().dependant.query_params
            if _is_options(field.field_info.annotation)
        ]
        for route in CONVERSION_ROUTES
    }
    with_query_options = [
        c for c in every() if c.options is not None and c.takes.reads in (Reads.FILE, Reads.TEXT, Reads.FILES)
    ]
    assert models == declared and sum(map(len, models.values())) == len(with_query_options)


def _is_options(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, QueryOptions)


def solved_by_fastapi(route: MeteredRoute) -> TestClient:
    """`route`'s declaration served by FastAPI's own route and handler (its dependency solving, the router's
    `metered` dependency admitting), with the same error mapping and body handling."""
    client: TestClient = route_alone(route.declaration())
    return client


def requests_for(route: MeteredRoute) -> list[tuple[str, dict[str, str], bytes, str | None]]:
    """(query string, headers, body, key?) cases for `route`: its options given wrong values, bodies of each kind."""
    names = [
        field.alias
        for field in route.declaration().dependant.query_params
        if not _is_options(field.field_info.annotation)
    ]
    model_fields = [
        (info.alias or name)
        for field in route.declaration().dependant.query_params
        for name, info in getattr(field.field_info.annotation, "model_fields", {}).items()
    ]
    wrong = "&".join(f"{name}=zz%00z" for name in [*names, *model_fields])
    deep = b"[" * 5000 + b"]" * 5000
    cases: list[tuple[str, dict[str, str], bytes, str | None]] = []
    for content_type in ("application/json", "text/plain", "application/octet-stream"):
        for body in (b"", b"{}", b'"hello world"', b"not json {", deep, b'{"text": "hi", "color": "red"}'):
            cases.append(("", {"Content-Type": content_type}, body, "key"))
    cases.append((wrong, {"Content-Type": "application/json"}, b"{}", "key"))
    cases.append((wrong, {"Content-Type": "application/octet-stream"}, b"\x89PNG\r\n", "key"))
    cases.append(("", {}, b"", None))
    return cases


def answers(client: TestClient, route: MeteredRoute, key: str) -> list[tuple[int, Any]]:
    method = next(iter(route.methods or ()))
    got = []
    for query, headers, body, with_key in requests_for(route):
        sent = {**headers, **(auth(key) if with_key else {})}
        response = client.request(method, f"{route.path}?{query}", content=body, headers=sent)
        try:
            payload: Any = response.json()
            payload = {name: payload[name] for name in ("error", "message") if name in payload} or payload
        except (ValueError, RecursionError):
            payload = response.content
        got.append((response.status_code, payload))
    return got


@pytest.mark.parametrize("route", CONVERSION_ROUTES, ids=lambda route: route.path)
def test_a_bound_route_answers_as_fastapi_would(api: TestClient, key: str, route: MeteredRoute) -> None:
    assert answers(api, route, key) == answers(solved_by_fastapi(route), route, key)


@pytest.mark.parametrize(
    "route",
    [route for route in CONVERSION_ROUTES if route.declaration().dependant.body_params],
    ids=lambda route: route.path,
)
def test_a_json_route_refuses_a_missing_key_before_reading_the_body(api: TestClient, route: MeteredRoute) -> None:
    headers = {"Content-Type": "application/json"}
    response = api.post(route.path, content=b"not json", headers=headers)
    assert (response.status_code, response.json()["error"]) == (401, "unauthorized")
    solved = solved_by_fastapi(route).post(route.path, content=b"not json", headers=headers)
    assert (solved.status_code, solved.json()["error"]) == (400, "invalid_input")  # FastAPI's order, not ours


@pytest.mark.parametrize(
    ("path", "query", "name"),
    [
        ("/v1/image/resize", "width=10&width=20", "width"),
        ("/v1/pdf/split", "ranges=1&ranges=2", "ranges"),
        ("/v1/data/json-format", "indent=2&indent=4", "indent"),
    ],
)
def test_an_option_given_twice_is_refused_and_not_counted(
    api: TestClient, key: str, path: str, query: str, name: str
) -> None:
    before = api.get("/v1/usage", headers=auth(key)).json()["used_this_month"]
    response = api.post(f"{path}?{query}", content=b"{}", headers=auth(key))
    assert response.status_code == 400
    assert response.json() == {
        "error": "invalid_input",
        "message": f"{name}: given more than once; give it once",
        "docs_url": "/docs/errors#invalid_input",
    }
    assert api.get("/v1/usage", headers=auth(key)).json()["used_this_month"] == before
