"""template.yaml, the functions' apps and the OpenAPI document cannot drift apart."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.routing import APIRoute
from openapi_spec_validator import validate

from fileapi.catalogue.registry import every
from fileapi.local.documents import render_openapi
from fileapi.local.server import function_app
from fileapi.local.template import load_functions, load_template
from fileapi.setting_variables import DEFAULT_DEADLINE_SECONDS
from fileapi.web import docs_page, usage_page
from fileapi.web.docs import build_openapi
from fileapi.web.served import ServedRoute
from fileapi.web.spec import OPENAPI_PATH

FUNCTIONS = load_functions()
UNAUTHENTICATED_V1 = {"/v1/keys/recover", "/v1/keys/recover/confirm"}
CONTRACT_ERRORS = {"400", "401", "403", "413", "429", "500"}


def app_routes(spec: Any) -> set[tuple[str, str]]:
    return {
        (method, route.path)
        for route in function_app(spec).routes
        if isinstance(route, (APIRoute, ServedRoute))
        for method in route.methods or ()
    }


@pytest.mark.parametrize("spec", FUNCTIONS, ids=[spec.logical_id for spec in FUNCTIONS])
def test_each_function_serves_exactly_its_template_routes(spec: Any) -> None:
    assert app_routes(spec) == set(spec.routes)


def test_template_functions_are_the_families_built_so_far() -> None:
    assert [spec.logical_id for spec in FUNCTIONS] == [
        "HealthFunction",
        "DataFunction",
        "ImageFunction",
        "PdfFunction",
        "CodesFunction",
        "RenderFunction",
        "TextFunction",
        "AccountFunction",
        "BillingEventsFunction",
        "FilesFunction",
    ]
    assert {path for spec in FUNCTIONS for _, path in spec.routes} >= {
        "/health",
        "/v1/usage",
        "/v1/data/base64-encode",
        "/v1/data/json-to-csv",
    }


def test_operational_settings_of_the_template() -> None:
    template = load_template()
    resources, conditions = template["Resources"], template["Conditions"]
    globals_ = template["Globals"]["Function"]
    # The conversion deadline answers well before the function's timeout and API Gateway's 30 s.
    assert DEFAULT_DEADLINE_SECONDS + 5 <= globals_["Timeout"] < 30
    assert "POWERTOOLS_TRACE_DISABLED" in globals_["Environment"]["Variables"]
    # The custom domain is optional: its resources and outputs exist only with a DomainName.
    assert "HasDomain" in conditions
    for name in ("ApiDomain", "ApiDomainMapping"):
        assert resources[name]["Condition"] == "HasDomain"
    assert resources["ApiDomainMapping"]["Properties"]["Stage"] == "$default"
    for name in ("CustomDomainUrl", "CustomDomainTarget"):
        assert template["Outputs"][name]["Condition"] == "HasDomain"


def test_committed_openapi_is_current() -> None:
    generated = render_openapi(build_openapi(function_app(spec) for spec in FUNCTIONS))
    assert OPENAPI_PATH.read_text(encoding="utf-8") == generated, "run `make openapi`"


def test_openapi_is_valid_and_documents_every_route() -> None:
    spec = json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))
    validate(spec)
    documented = {(method.upper(), path) for path, item in spec["paths"].items() for method in item}
    # The interactive reference is the document's viewer, and the usage page a page to open: not operations (no
    # SDK method, no MCP tool).
    page = {("GET", path) for path in {**docs_page.page_routes(), **usage_page.page_routes()}}
    routes = {route for function in FUNCTIONS for route in function.routes}
    assert page < routes
    assert documented == routes - page


def test_metered_operations_document_errors_headers_and_security() -> None:
    spec = json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))
    assert spec["components"]["securitySchemes"]["apiKey"] == {
        "type": "http",
        "description": "API key as a bearer token: `Authorization: Bearer sk_live_...`",
        "scheme": "bearer",
    }
    for path, item in spec["paths"].items():
        for operation in item.values():
            if not path.startswith("/v1/") or path in UNAUTHENTICATED_V1:
                assert operation["security"] == []  # public, said explicitly
                continue
            assert operation["security"] == [{"apiKey": []}]
            assert {"401", "403", "429", "500"} <= set(operation["responses"])
            responses = operation["responses"]
            success = next(responses[status] for status in ("200", "201", "204", "303") if status in responses)
            assert "X-Quota-Remaining" in success["headers"] or "Location" in success["headers"]
            if path.startswith("/v1/data/"):
                assert set(operation["responses"]) >= CONTRACT_ERRORS
                assert operation["requestBody"]["required"] is True
                assert operation["summary"]


def test_conversions_declare_their_operation_and_posts_their_idempotency_key() -> None:
    spec = json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))
    conversions = 0
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            names = {parameter["name"] for parameter in operation.get("parameters", [])}
            if "Idempotency-Key" not in names:
                assert method != "post" or not operation["security"], (method, path)
                continue
            if "202" in operation["responses"]:
                conversions += 1
                assert {"upload", "Prefer"} <= names or path == "/v1/pipelines"  # its inputs name its uploads
                accepted = operation["responses"]["202"]
                assert accepted["content"]["application/json"]["schema"] == {
                    "$ref": "#/components/schemas/OperationResult"
                }
                assert {"Location", "Retry-After", "Preference-Applied", "X-Quota-Remaining"} <= set(
                    accepted["headers"]
                )
                assert {"404", "409", "422"} <= set(operation["responses"])
            else:
                assert {"409", "422"} <= set(operation["responses"])
    assert conversions == len(every()) + 1  # and the pipelines


def test_the_upload_parameter_is_one_id_and_repeated_where_a_conversion_takes_several() -> None:
    spec = json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))
    one_id = {"type": "string", "pattern": "^upl_[a-z0-9]{26}$"}
    shapes = {}
    for path, item in spec["paths"].items():
        for parameter in item.get("post", {}).get("parameters", []):
            if parameter["name"] == "upload":
                assert (parameter["in"], parameter["required"]) == ("query", False)
                shapes[path] = parameter["schema"]
    for conversion in every():
        most = conversion.takes.most
        expected = {"type": "array", "items": one_id, "minItems": 1, "maxItems": most} if most > 1 else one_id
        assert shapes.pop(conversion.path) == expected, conversion.path
    assert shapes == {}


def test_an_idempotency_key_in_flight_says_when_to_retry() -> None:
    spec = json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))
    for path in ("/v1/pdf/split", "/v1/uploads", "/v1/webhooks"):
        conflict = spec["paths"][path]["post"]["responses"]["409"]
        assert conflict["description"] == "Error: `idempotency_in_flight`"
        assert set(conflict["headers"]) == {"Retry-After", "X-Request-Id"}


def test_a_running_operation_says_when_to_poll_again() -> None:
    spec = json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))
    polled = spec["paths"]["/v1/operations/{operation_id}"]["get"]["responses"]["200"]
    assert polled["headers"]["Retry-After"] == {"$ref": "#/components/headers/Retry-After"}
    assert polled["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/OperationResult"}


def test_bounds_are_in_the_schema() -> None:
    spec = json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))
    parameters = spec["paths"]["/v1/data/json-format"]["post"]["parameters"]
    indent = next(parameter for parameter in parameters if parameter["name"] == "indent")
    assert indent["schema"] == {
        "type": "integer",
        "maximum": 8,
        "minimum": 1,
        "description": "Spaces per nesting level.",
        "default": 2,
        "title": "Indent",
    }


def test_the_metering_charge_alarm_watches_the_metric_metering_emits() -> None:
    from fileapi.metering.settling import Fault
    from fileapi.telemetry import METERING_FAULTS_METRIC, METRICS_NAMESPACE

    alarm = load_template()["Resources"]["MeteringChargeAlarm"]["Properties"]
    assert (alarm["Namespace"], alarm["MetricName"]) == (METRICS_NAMESPACE, METERING_FAULTS_METRIC)
    assert {"Name": "kind", "Value": Fault.SETTLE_FAILED.value} in alarm["Dimensions"]
