"""CORS on the local API as the template's HttpApi CorsConfiguration declares it (issue 20): preflights answered,
CORS headers on every answer to a request with an Origin."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from fileapi.catalogue.registry import every
from fileapi.local.cors import CorsMiddleware
from fileapi.local.template import TEMPLATE_PATH, load_cors, load_template
from tests.helpers import auth

ORIGIN = "https://app.example.com"


def template_cors() -> dict[str, Any]:
    """The CorsConfiguration as template.yaml writes it, AllowOrigins resolved to its parameter's default."""
    template = load_template(TEMPLATE_PATH)
    (cors,) = [
        resource["Properties"]["CorsConfiguration"]
        for resource in template["Resources"].values()
        if resource["Type"] == "AWS::Serverless::HttpApi"
    ]
    origins = template["Parameters"][cors["AllowOrigins"]]["Default"]
    return {**cors, "AllowOrigins": origins.split(",")}


def as_set(value: str) -> set[str]:
    return {item.strip().lower() for item in value.split(",")}


def test_a_preflight_from_another_origin_is_answered_as_the_template_declares(api: TestClient) -> None:
    cors = template_cors()
    response = api.options(
        "/v1/image/resize",
        headers={
            "Origin": ORIGIN,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type",
        },
    )
    assert response.status_code == 204
    assert cors["AllowOrigins"] == ["*"]  # the default no stage of samconfig.toml overrides
    assert response.headers["access-control-allow-origin"] == "*"
    assert as_set(response.headers["access-control-allow-methods"]) == {
        method.lower() for method in cors["AllowMethods"]
    }
    assert as_set(response.headers["access-control-allow-headers"]) == {name.lower() for name in cors["AllowHeaders"]}
    assert response.headers["access-control-max-age"] == str(cors["MaxAge"])
    assert response.content == b""


def test_answers_to_another_origin_carry_the_exposed_headers(api: TestClient, key: str) -> None:
    exposed = {name.lower() for name in template_cors()["ExposeHeaders"]}
    for response in (
        api.post("/v1/data/base64-encode", content=b"hi", headers={**auth(key), "Origin": ORIGIN}),
        api.post("/v1/data/base64-encode", content=b"hi", headers={"Origin": ORIGIN}),  # a 401 too
        api.get("/health", headers={"Origin": ORIGIN}),
    ):
        assert response.headers["access-control-allow-origin"] == "*"
        assert as_set(response.headers["access-control-expose-headers"]) == exposed
    assert "x-quota-remaining" in exposed and "x-request-id" in exposed


def test_every_header_a_conversion_answers_with_is_exposed() -> None:
    from fileapi.metering.headers import DEPRECATED_KEY_HEADERS, HEADER_DESCRIPTIONS

    exposed = {name.lower() for name in template_cors()["ExposeHeaders"]}
    documented = {name.lower() for conversion in every() for name in conversion.gives.headers}
    documented |= {name.lower() for name in (*HEADER_DESCRIPTIONS, *DEPRECATED_KEY_HEADERS, "Retry-After")}
    assert "x-quality-score" in documented and "ratelimit-reset" in documented
    assert documented <= exposed, f"add {sorted(documented - exposed)} to the template's ExposeHeaders"


def test_requests_without_an_origin_get_no_cors_headers(api: TestClient) -> None:
    response = api.get("/health")
    assert not [name for name in response.headers if name.startswith("access-control-")]


async def ok(_: Request) -> PlainTextResponse:
    return PlainTextResponse("ok", headers={"Access-Control-Allow-Origin": "https://ignored.example.com"})


@pytest.mark.parametrize(
    ("origin", "answered"),
    [
        (ORIGIN, ORIGIN),
        ("https://other.example.com", None),
        ("http://localhost:5173", "http://localhost:5173"),
    ],
)
def test_a_list_of_origins_is_matched_and_echoed(origin: str, answered: str | None) -> None:
    config = load_cors(TEMPLATE_PATH, allow_origins=(ORIGIN, "http://*"))
    app = CorsMiddleware(Starlette(routes=[Route("/v1/qr/generate", ok, methods=["POST"])]), config)
    with TestClient(app) as client:
        preflight = client.options(
            "/v1/qr/generate", headers={"Origin": origin, "Access-Control-Request-Method": "POST"}
        )
        answer = client.post("/v1/qr/generate", headers={"Origin": origin})
    assert preflight.status_code == 204
    assert preflight.headers.get("access-control-allow-origin") == answered
    assert answer.headers.get("access-control-allow-origin") == answered
    if answered:
        assert answer.headers["vary"] == "Origin"
