"""Optional parameters read as their type in /openapi.json (fileapi.web.docs._tidy): a parameter is left out, never
sent as null, so pydantic's `anyOf: [T, null]` of `T | None = None` is T ("integer", not "integer | null")."""

from __future__ import annotations

import json
from typing import Any

from fileapi.web.spec import OPENAPI_PATH

SPEC = json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))
PARAMETERS = [
    (path, parameter)
    for path, operations in SPEC["paths"].items()
    for operation in operations.values()
    for parameter in operation.get("parameters", [])
]


def _has_null(schema: Any) -> bool:
    if isinstance(schema, dict):
        return schema.get("type") == "null" or any(_has_null(value) for value in schema.values())
    return isinstance(schema, list) and any(map(_has_null, schema))


def test_no_parameter_schema_has_a_null_branch() -> None:
    assert len(PARAMETERS) > 100
    assert [(path, parameter["name"]) for path, parameter in PARAMETERS if _has_null(parameter["schema"])] == []


def test_an_optional_integer_keeps_its_bounds_and_description() -> None:
    (width,) = [p for path, p in PARAMETERS if path == "/v1/image/resize" and p["name"] == "width"]
    assert width["required"] is False
    assert width["schema"] == {
        "type": "integer",
        "minimum": 1,
        "title": "Width",
        "description": "Target width in pixels. Give width, height or both (at least one).",
    }


def test_an_optional_enumeration_keeps_its_reference() -> None:
    (chosen,) = [p for path, p in PARAMETERS if path == "/v1/image/resize" and p["name"] == "format"]
    assert chosen["schema"]["$ref"] == "#/components/schemas/ImageFormat"
    assert "anyOf" not in chosen["schema"]
