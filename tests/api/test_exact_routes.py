"""A ServedRoute at a fixed path is answered by fileapi.web.exact_routes, without the framework's layers and router:
the same route chosen, the same scope (but the two keys of the framework's layers it skips), the same body as
RequestBodyMiddleware makes it, and the same answers, success or error, as when the framework dispatches the request
(the same app with ExactRoutes' table emptied)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import APIRouter, FastAPI, Request
from fastapi.testclient import TestClient
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse, Response

from fileapi.catalogue.data import CONVERSIONS
from fileapi.errors import InvalidInput
from fileapi.web.app import create_app
from fileapi.web.catalogue_routes import family_router
from fileapi.web.errors import install_error_handlers
from fileapi.web.exact_routes import ExactRoutes, ServiceApp, exact_routes
from fileapi.web.served import ServedRoute
from tests.helpers import auth

# Set in the scope by the framework's layers that ExactRoutes skips (ExceptionMiddleware, AsyncExitStackMiddleware):
# read only by FastAPI's and Starlette's own endpoint wrappers, which a ServedRoute does not use.
FRAMEWORK_ONLY_KEYS = {"starlette.exception_handlers", "fastapi_middleware_astack"}
# Headers whose values change from one request to the next (the request's id, the key's counts and timing).
CHANGING_HEADERS = {"x-request-id", "x-quota-remaining", "ratelimit-remaining", "ratelimit-reset", "ratelimit"}


def exact_layer(app: FastAPI) -> ExactRoutes:
    """The app's ExactRoutes (its middleware stack built)."""
    assert isinstance(app, ServiceApp)
    app.middleware_stack = app.build_middleware_stack()
    assert app.exact is not None
    return app.exact


@pytest.fixture()
def installed(api: TestClient) -> None:
    """The session's stores as this process's, as the `api` fixture installs them (admission answers, not 503)."""


@pytest.fixture()
def both(installed: None) -> Iterator[tuple[TestClient, TestClient]]:
    """The Data function's app twice: one answering its routes itself, one through the framework's router."""
    direct, framework = (create_app(family_router(CONVERSIONS), title="Data") for _ in range(2))
    assert exact_layer(direct).routes
    exact_layer(framework).routes = {}
    with (
        TestClient(direct, raise_server_exceptions=False) as ours,
        TestClient(framework, raise_server_exceptions=False) as theirs,
    ):
        yield ours, theirs


def answer(client: TestClient, method: str, path: str, **kwargs: Any) -> tuple[Any, ...]:
    response = client.request(method, path, **kwargs)
    headers = {name: value for name, value in response.headers.items() if name not in CHANGING_HEADERS}
    return response.status_code, response.content, headers, sorted(response.headers.keys())


def test_exact_routes_are_the_fixed_paths_the_router_would_choose() -> None:
    async def endpoint() -> Response:
        return Response()

    first_post = ServedRoute("/v1/a/{name}", endpoint, methods=["POST"])
    fixed = ServedRoute("/v1/a/b", endpoint, methods=["POST", "PUT"])
    later = ServedRoute("/v1/c", endpoint, methods=["GET"])
    shadowed = ServedRoute("/v1/c", endpoint, methods=["GET", "DELETE"])
    found = exact_routes([first_post, fixed, later, shadowed])
    assert found == {("PUT", "/v1/a/b"): fixed, ("GET", "/v1/c"): later, ("DELETE", "/v1/c"): shadowed}


def test_every_catalogue_route_of_the_data_function_is_exact() -> None:
    layer = exact_layer(create_app(family_router(CONVERSIONS), title="Data"))
    assert {path for _, path in layer.routes} == {conversion.path for conversion in CONVERSIONS}


@pytest.mark.parametrize(
    ("method", "path", "query", "with_key", "body"),
    [
        ("POST", "/v1/data/base64-encode", "", True, b"hello"),  # 200
        ("POST", "/v1/data/base64-encode", "", False, b"hello"),  # 401 from admission
        ("POST", "/v1/data/base64-encode", "?colour=red", True, b"hello"),  # 400 unknown parameter
        ("POST", "/v1/data/base64-decode", "", True, b"!!not base64!!"),  # 400 from the converter
        ("POST", "/v1/data/base64-encode", "?padding=maybe", True, b"hello"),  # 400 bad option value
        ("GET", "/v1/data/base64-encode", "", True, b""),  # 405: not exact, the router's
        ("POST", "/v1/data/nothing-here", "", True, b"hello"),  # 404: the router's
    ],
)
def test_a_request_is_answered_as_the_router_answers_it(
    both: tuple[TestClient, TestClient], key: str, method: str, path: str, query: str, with_key: bool, body: bytes
) -> None:
    ours, theirs = both
    headers = {**(auth(key) if with_key else {}), "Content-Type": "application/octet-stream"}
    given = {"content": body, "headers": headers}
    answered = answer(ours, method, path + query, **given)
    assert answered == answer(theirs, method, path + query, **given)
    assert answered[0] != 503


@pytest.mark.parametrize(
    ("label", "sent"),
    [
        ("multipart", {"files": {"file": ("a.bin", b"hello", "application/octet-stream")}}),  # curl -F: the file
        ("multipart with a field", {"files": {"file": ("a.bin", b"hello")}, "data": {"padding": "false"}}),
        ("form label", {"content": b"hello", "headers": {"Content-Type": "application/x-www-form-urlencoded"}}),
        ("json label", {"content": b'"hello"', "headers": {"Content-Type": "application/json"}}),
        ("broken multipart", {"content": b"--x\r\n", "headers": {"Content-Type": "multipart/form-data; boundary=x"}}),
    ],
)
def test_a_body_is_read_as_the_framework_reads_it(
    both: tuple[TestClient, TestClient], key: str, label: str, sent: dict[str, Any]
) -> None:
    ours, theirs = both
    given = {**sent, "headers": {**sent.get("headers", {}), **auth(key)}}
    answered = answer(ours, "POST", "/v1/data/base64-encode", **given)
    assert answered == answer(theirs, "POST", "/v1/data/base64-encode", **given)
    assert answered[0] == (400 if label == "broken multipart" else 200)


def test_a_body_over_the_limit_is_refused_as_before(both: tuple[TestClient, TestClient], key: str) -> None:
    from fileapi.settings import get_settings

    ours, theirs = both
    given = {"content": b"x" * (get_settings().max_body_bytes + 1), "headers": auth(key)}
    refused = answer(ours, "POST", "/v1/data/base64-encode", **given)
    assert refused == answer(theirs, "POST", "/v1/data/base64-encode", **given)
    assert refused[0] == 413


def test_a_request_under_a_root_path_goes_through_the_framework(installed: None, key: str) -> None:
    app = create_app(family_router(CONVERSIONS), title="Data")
    layer = exact_layer(app)
    served: list[Any] = []
    original = ExactRoutes.__call__

    async def spy(self: ExactRoutes, scope: Any, receive: Any, send: Any) -> None:
        served.append(scope["path"])
        await original(self, scope, receive, send)

    layer.__class__ = type("Spied", (ExactRoutes,), {"__call__": spy})
    with TestClient(app, raise_server_exceptions=False) as client:
        assert client.post("/v1/data/base64-encode", content=b"hi", headers=auth(key)).status_code == 200
        mounted = TestClient(app, root_path="/stage", raise_server_exceptions=False)
        assert mounted.post("/v1/data/base64-encode", content=b"hi", headers=auth(key)).status_code == 200
    assert served == ["/v1/data/base64-encode"]


class Teapot(InvalidInput):
    """An ApiError subclass: its handler is found by the class's bases."""


def failing_app() -> FastAPI:
    """An app of ServedRoutes that fail each in its own way, and one that shows the scope it was given."""

    async def api_error() -> Response:
        raise Teapot("no tea here")

    async def http_error() -> Response:
        raise HTTPException(status_code=413, detail="too much")

    async def fault() -> Response:
        raise RuntimeError("secret request content")

    async def scope_of(request: Request) -> Response:
        scope = request.scope
        keys = sorted(str(name) for name in scope if name not in FRAMEWORK_ONLY_KEYS)
        return JSONResponse(
            {
                "keys": keys,
                "route": scope["route"].path,
                "endpoint": scope["endpoint"].__name__,
                "router": scope["router"] is scope["app"].router,
                "path_params": scope["path_params"],
            }
        )

    router = APIRouter()
    for path, endpoint in (("/api-error", api_error), ("/http-error", http_error), ("/fault", fault)):
        router.routes.append(ServedRoute(path, endpoint, methods=["POST"]))
    router.routes.append(ServedRoute("/scope", scope_of, methods=["GET"]))
    return create_app(router, title="Failing")


@pytest.mark.parametrize(
    ("method", "path"), [("POST", "/api-error"), ("POST", "/http-error"), ("POST", "/fault"), ("GET", "/scope")]
)
def test_a_failure_is_answered_by_the_same_handler(method: str, path: str) -> None:
    direct, framework = failing_app(), failing_app()
    assert len(exact_layer(direct).routes) == 4
    exact_layer(framework).routes = {}
    ours = answer(TestClient(direct, raise_server_exceptions=False), method, path)
    theirs = answer(TestClient(framework, raise_server_exceptions=False), method, path)
    assert ours == theirs
    assert ours[0] == {"/api-error": 400, "/http-error": 413, "/fault": 500, "/scope": 200}[path]
    assert b"secret" not in ours[1]


def test_an_app_with_the_frameworks_telemetry_on_leaves_every_request_to_it() -> None:
    app = ServiceApp(wrap=lambda inner: inner, telemetry={"tracing": True, "metrics": False, "logs": False})
    app.router.routes.extend(family_router(CONVERSIONS).routes)
    install_error_handlers(app)
    app.middleware_stack = app.build_middleware_stack()
    assert app.exact is None and app.front is None
