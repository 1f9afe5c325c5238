"""A misspelled option is refused on every endpoint of /openapi.json, never silently taken as the default: 400
invalid_input naming it and the name it may mean (fileapi.web.binding for query parameters and form fields,
fileapi.models.ClosedModel for JSON fields, fileapi.web.pdf_bodies for merge's and fill-form's bodies), with
nothing counted. The protocol's own parameter (`upload`) stays accepted.

Left out: the paths outside /v1 (the health probe, the document and the error page: no options, served without a
key) and the Stripe webhook, whose events carry fields we do not model by design."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from fileapi.web.spec import OPENAPI_PATH
from tests.helpers import auth

SPEC = json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))
OPERATIONS = [
    (method.upper(), path, operation)
    for path, methods in SPEC["paths"].items()
    if path.startswith("/v1/")
    for method, operation in methods.items()
]
PATH_VALUES = {"operation_id": "op_doesnotexist", "webhook_id": "wh_doesnotexist"}


def _misspelled(name: str) -> str:
    """`name` with one letter dropped (its second to last: `quality` -> `qualiy`), or doubled when short."""
    return name[:-2] + name[-1] if len(name) > 4 else name + name[-1]


def _schema(reference: dict[str, Any]) -> dict[str, Any]:
    name = reference.get("$ref", "").rpartition("/")[2]
    found: dict[str, Any] = SPEC["components"]["schemas"][name] if name else reference
    return found


def _body_model(operation: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The media type and schema of the operation's request body when it is an object of named fields."""
    for media_type, content in operation.get("requestBody", {}).get("content", {}).items():
        schema = _schema(content.get("schema", {}))
        if schema.get("properties"):
            return media_type, schema
    return None


def _own_query(operation: dict[str, Any]) -> list[str]:
    return [
        parameter["name"]
        for parameter in operation.get("parameters", [])
        if parameter["in"] == "query" and parameter["name"] != "upload"
    ]


def _url(path: str, query: str) -> str:
    for name, value in PATH_VALUES.items():
        path = path.replace(f"{{{name}}}", value)
    return f"{path}?{query}"


def _sent(api: TestClient, key: str, method: str, url: str, body: tuple[str, dict[str, Any]] | None) -> Any:
    if body is None:
        return api.request(method, url, headers=auth(key))
    media_type, fields = body
    if media_type == "multipart/form-data":
        parts = [(name, ("part", b"%PDF-1.4\n", "application/pdf")) for name in fields]
        return api.request(method, url, headers=auth(key), files=parts)
    return api.request(method, url, headers=auth(key), json=fields)


def _example(schema: dict[str, Any]) -> dict[str, Any]:
    examples: list[dict[str, Any]] = schema.get("examples") or [{}]
    return dict(examples[0])


def _used(api: TestClient, key: str) -> int:
    return int(api.get("/v1/usage", headers=auth(key)).json()["used_this_month"])


@pytest.mark.parametrize(("method", "path", "operation"), OPERATIONS, ids=[f"{m} {p}" for m, p, _ in OPERATIONS])
def test_a_misspelled_query_parameter_is_refused_naming_it(
    api: TestClient, key: str, method: str, path: str, operation: dict[str, Any]
) -> None:
    own = _own_query(operation)
    model = _body_model(operation)
    body = None if model is None else (model[0], _example(model[1]))
    before = _used(api, key)
    if own:
        meant = max(own, key=len)
        wrong = _misspelled(meant)
        expected = f"unknown parameter {wrong!r}; did you mean {meant!r}?"
    else:
        wrong = "qualty"
        expected = f"unknown parameter {wrong!r}: this endpoint takes no parameters; leave it out"
    answer = _sent(api, key, method, _url(path, f"{wrong}=5"), body)
    assert (answer.status_code, answer.json()["error"]) == (400, "invalid_input"), answer.text
    assert expected in answer.json()["message"]
    assert _used(api, key) == before


BODY_OPERATIONS = [(method, path, operation) for method, path, operation in OPERATIONS if _body_model(operation)]


@pytest.mark.parametrize(
    ("method", "path", "operation"), BODY_OPERATIONS, ids=[f"{m} {p}" for m, p, _ in BODY_OPERATIONS]
)
def test_a_misspelled_body_field_is_refused_naming_it(
    api: TestClient, key: str, method: str, path: str, operation: dict[str, Any]
) -> None:
    model = _body_model(operation)
    assert model is not None
    media_type, schema = model
    meant = max(schema["properties"], key=len)
    wrong = _misspelled(meant)
    fields = {**_example(schema), wrong: _example(schema).get(meant, "x")}
    before = _used(api, key)
    answer = _sent(api, key, method, _url(path, ""), (media_type, fields))
    assert (answer.status_code, answer.json()["error"]) == (400, "invalid_input"), answer.text
    assert f"unknown field {wrong!r}; did you mean {meant!r}?" in answer.json()["message"]
    assert _used(api, key) == before


def test_every_json_request_model_is_closed() -> None:
    bodies = [_body_model(operation) for _, path, operation in OPERATIONS if path != "/v1/pdf/merge"]
    schemas = [schema for media_type, schema in filter(None, bodies) if media_type == "application/json"]
    assert len(schemas) == 10 and all(schema.get("additionalProperties") is False for schema in schemas)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("to=webp&qualty=5", "unknown parameter 'qualty'; did you mean 'quality'?"),
        ("to=webp&Quality=5", "unknown parameter 'Quality'; did you mean 'quality'?"),
        ("to=webp&uplaod=upl_x", "unknown parameter 'uplaod'; did you mean 'upload'?"),
        ("to=webp&zzz=1", "unknown parameter 'zzz'; the parameters here are: to, quality, targetScore, jpegTranscode"),
    ],
)
def test_the_message_offers_the_closest_known_name(api: TestClient, key: str, query: str, message: str) -> None:
    answer = api.post(f"/v1/image/convert?{query}", content=b"\x89PNG\r\n", headers=auth(key))
    assert answer.status_code == 400
    assert answer.json()["message"] == message


def test_a_snake_case_option_is_refused_naming_its_camel_case_name(api: TestClient, key: str) -> None:
    answer = api.post("/v1/pdf/protect?user_password=s3cret", content=b"%PDF-1.4\n", headers=auth(key))
    assert answer.status_code == 400
    assert answer.json()["message"].startswith("unknown parameter 'user_password'; did you mean 'userPassword'?")


def test_a_misspelled_form_field_is_refused_like_a_query_parameter(api: TestClient, key: str) -> None:
    form = {"file": ("photo.png", b"\x89PNG\r\n", "image/png")}
    answer = api.post("/v1/image/convert", headers=auth(key), files=form, data={"to": "webp", "qualty": "5"})
    assert answer.status_code == 400
    assert answer.json()["message"] == "unknown parameter 'qualty'; did you mean 'quality'?"


def test_a_misspelled_qr_field_is_refused_where_it_was_drawn_in_black(api: TestClient, key: str) -> None:
    answer = api.post("/v1/qr/generate", json={"text": "hi", "foregroud": "#ff0000"}, headers=auth(key))
    assert answer.status_code == 400
    assert answer.json()["message"] == "unknown field 'foregroud'; did you mean 'foreground'?"


def test_each_unknown_name_is_named(api: TestClient, key: str) -> None:
    answer = api.post("/v1/text/diff?contxt=1", json={"a": "x", "b": "y", "lablA": "z"}, headers=auth(key))
    assert answer.status_code == 400
    message = answer.json()["message"]
    assert "unknown parameter 'contxt': this endpoint takes no parameters; leave it out" in message
    assert "unknown field 'lablA'; did you mean 'labelA'?" in message
