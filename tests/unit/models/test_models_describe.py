"""The models describe the data: every schema of the OpenAPI document says what it is, every field what it
holds, and every schema (objects and enumerations) shows an example that its own schema accepts."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # (schemathesis, check-jsonschema)

from fileapi.web.spec import OPENAPI_PATH

SPEC: dict[str, Any] = json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))
SCHEMAS: dict[str, Any] = SPEC["components"]["schemas"]


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_every_schema_and_field_is_described(name: str) -> None:
    schema = SCHEMAS[name]
    assert schema.get("description"), f"{name}: give the model a docstring"
    undescribed = [field for field, entry in schema.get("properties", {}).items() if not entry.get("description")]
    assert not undescribed, f"{name}: fields without a description: {undescribed}"


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_every_schema_has_an_example_it_accepts(name: str) -> None:
    examples = SCHEMAS[name].get("examples")
    assert examples, f"{name}: give the model an example (fileapi.models.example)"
    validator = Draft202012Validator({**SCHEMAS[name], "components": SPEC["components"]})
    for value in examples:
        errors = [error.message for error in validator.iter_errors(value)]
        assert not errors, f"{name}: its example {value!r} does not fit its schema: {errors}"


def test_every_query_option_is_described() -> None:
    undescribed = [
        (path, parameter["name"])
        for path, item in SPEC["paths"].items()
        for operation in item.values()
        for parameter in operation.get("parameters", [])
        if not parameter.get("description") and not parameter.get("schema", {}).get("description")
    ]
    assert not undescribed
