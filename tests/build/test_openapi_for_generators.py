"""The OpenAPI document against the rules code generators and linters need, checked offline.

Each rule is one that openapi-python-client 0.29, openapi-typescript 7 or `redocly lint` (recommended)
tripped on: a JSON body declared as a string is sent double-encoded; a binary media type without
`format: binary` is typed as text; a request body offered two ways breaks openapi-python-client's
import; a success answer in no media type it knows gets no handler; an operation without `security`
fails the linter; a cut-off example is not a value.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator
from typing import Any

import pytest

from fileapi.web.spec import OPENAPI_PATH

# The request media types openapi-python-client generates a body for, and the answers it parses.
GENERATOR_BODY_TYPES = ("application/json", "multipart/form-data", "application/x-www-form-urlencoded")
OCTET_STREAM = "application/octet-stream"
TEXT_LIKE = ("text/", "image/svg+xml")


def _spec() -> dict[str, Any]:
    spec: dict[str, Any] = json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))
    return spec


def _operations() -> Iterator[tuple[str, dict[str, Any]]]:
    for path, methods in _spec()["paths"].items():
        for method, operation in methods.items():
            yield f"{method.upper()} {path}", operation


def _media(operation: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(where, media type, media object) of the request body and of every response."""
    for media_type, entry in operation.get("requestBody", {}).get("content", {}).items():
        yield "request", media_type, entry
    for status, response in operation["responses"].items():
        for media_type, entry in response.get("content", {}).items():
            yield status, media_type, entry


OPERATIONS = dict(_operations())


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_json_request_bodies_are_json_values_not_strings(name: str) -> None:
    body = OPERATIONS[name].get("requestBody", {}).get("content", {}).get("application/json")
    if body is not None:
        assert body["schema"].get("type") != "string", f"{name}: a JSON body declared as a string is double-encoded"


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_binary_media_types_say_format_binary(name: str) -> None:
    for where, media_type, entry in _media(OPERATIONS[name]):
        if media_type.startswith(TEXT_LIKE) or media_type.endswith("json") or media_type == "multipart/form-data":
            continue
        assert entry["schema"] == {"type": "string", "format": "binary"}, (name, where, media_type)


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_one_request_body_a_generator_can_build(name: str) -> None:
    content = OPERATIONS[name].get("requestBody", {}).get("content", {})
    known = [media for media in content if media in (*GENERATOR_BODY_TYPES, OCTET_STREAM)]
    assert len(known) <= 1, f"{name}: {known} (openapi-python-client then generates code that fails to import)"
    if content:
        assert known, f"{name}: no body openapi-python-client can build ({list(content)})"


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_success_answers_have_a_media_type_a_generator_parses(name: str) -> None:
    for status, response in OPERATIONS[name]["responses"].items():
        content = response.get("content", {})
        if status.startswith("2") and content:
            parsed = [media for media in content if media in ("application/json", OCTET_STREAM)]
            assert parsed or any(media.startswith("text/") for media in content), (name, status, list(content))


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_every_operation_says_its_security(name: str) -> None:
    operation = OPERATIONS[name]
    assert "security" in operation, f"{name}: say `security: []` for an operation without a key"
    needs_key = "401" in operation["responses"]
    assert operation["security"] == ([{"apiKey": []}] if needs_key else []), name


def _examples(value: Any, schema: dict[str, Any], spec: dict[str, Any]) -> Iterator[tuple[Any, dict[str, Any]]]:
    """Every (value, schema) pair inside an example, following the schema's properties and items."""
    while "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    yield value, schema
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            inner = properties.get(key, extra if isinstance(extra, dict) else {})
            yield from _examples(item, inner, spec)
    elif isinstance(value, list):
        for item in value:
            yield from _examples(item, schema.get("items", {}), spec)


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_examples_are_whole_values(name: str) -> None:
    spec = _spec()
    for where, media_type, entry in _media(OPERATIONS[name]):
        if "example" not in entry:
            continue
        for value, schema in _examples(entry["example"], entry.get("schema", {}), spec):
            assert not (isinstance(value, str) and value.endswith("...")), (name, where, media_type, value)
            if schema.get("format") == "byte":
                try:
                    base64.b64decode(value, validate=True)
                except (binascii.Error, ValueError, TypeError):
                    pytest.fail(f"{name} {where} {media_type}: {value!r} is not Base64")


def test_example_files_are_whole_files_of_their_type() -> None:
    from fileapi.convert.detect import detect_type
    from fileapi.metering.keys import is_well_formed
    from fileapi.models import examples

    assert detect_type(base64.b64decode(examples.PNG_BASE64)).mime == "image/png"
    assert detect_type(base64.b64decode(examples.ICO_BASE64)).extension == "ico"
    pdf = base64.b64decode(examples.PDF_BASE64)
    assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF")
    assert is_well_formed(examples.API_KEY)
