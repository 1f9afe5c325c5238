"""One MCP tool per API operation, its input schema built from the OpenAPI document.

Binary inputs are given as a local file path (`<name>_path`) or as Base64 (`<name>_base64`); binary
outputs are returned as MCP image content when they are images, and are written to `output_path`
when it is given, else returned as a Base64 blob resource.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from fileapi_client._core import Operation
from fileapi_client._generated import OPERATIONS

OUTPUT_PATH = "output_path"


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    operation: Operation
    read_only: bool


def load_spec() -> dict[str, Any]:
    """The OpenAPI document the SDK was generated from (shipped inside fileapi_client)."""
    text = resources.files("fileapi_client").joinpath("openapi.json").read_text(encoding="utf-8")
    spec: dict[str, Any] = json.loads(text)
    return spec


def _resolve(spec: dict[str, Any], schema: Any) -> Any:
    """`schema` with every $ref replaced by its component (the tools' schemas stand alone)."""
    if isinstance(schema, list):
        return [_resolve(spec, item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        target = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
        rest = {key: value for key, value in schema.items() if key != "$ref"}
        return _resolve(spec, {**target, **rest})
    return {key: _resolve(spec, value) for key, value in schema.items() if key != "title"}


def _plain(schema: dict[str, Any]) -> dict[str, Any]:
    """`X | null` as X: a tool leaves an argument out rather than passing null."""
    options = schema.get("anyOf")
    if options:
        kept = [option for option in options if option.get("type") != "null"]
        if len(kept) == 1:
            return {**kept[0], **{key: value for key, value in schema.items() if key != "anyOf"}}
    return schema


def _file_properties(name: str, description: str, *, many: bool) -> dict[str, Any]:
    if many:
        return {
            f"{name}_paths": {
                "type": "array",
                "items": {"type": "string"},
                "description": f"{description} Local paths.",
            },
            f"{name}_base64": {
                "type": "array",
                "items": {"type": "string", "contentEncoding": "base64"},
                "description": f"{description} Base64 contents (instead of {name}_paths).",
            },
        }
    return {
        f"{name}_path": {"type": "string", "description": f"{description} A local file path."},
        f"{name}_base64": {
            "type": "string",
            "contentEncoding": "base64",
            "description": f"{description} Its contents in Base64 (instead of {name}_path).",
        },
    }


def _body_properties(spec: dict[str, Any], operation: Operation, request_body: dict[str, Any]) -> dict[str, Any]:
    content = request_body["content"]
    properties: dict[str, Any] = {}
    if operation.body == "file":
        properties.update(_file_properties("file", request_body.get("description", "The input file."), many=False))
    elif operation.body == "text":
        properties["text"] = {"type": "string", "description": request_body.get("description", "The input text.")}
    elif operation.body == "json":
        properties["data"] = {"description": "The JSON document: any JSON value, or its text as a string."}
    else:
        media = "multipart/form-data" if operation.body == "multipart" else "application/json"
        schema = _resolve(spec, content[media]["schema"])
        for name, value in schema["properties"].items():
            if name in operation.files:
                many = value.get("type") == "array"
                properties.update(_file_properties(name, value.get("description", f"The {name}."), many=many))
            else:
                properties[name] = _plain(value)
    return properties


def _required(spec: dict[str, Any], operation: Operation, entry: dict[str, Any]) -> list[str]:
    required = [item["name"] for item in entry.get("parameters", []) if item.get("required") and item["in"] == "query"]
    if operation.body == "text":
        required.append("text")
    elif operation.body == "json":
        required.append("data")
    elif operation.body in ("fields", "multipart"):
        media = "multipart/form-data" if operation.body == "multipart" else "application/json"
        schema = _resolve(spec, entry["requestBody"]["content"][media]["schema"])
        required += [name for name in schema.get("required", []) if name not in operation.files]
    return required


def build_tools(spec: dict[str, Any]) -> dict[str, ToolSpec]:
    """A ToolSpec for every operation of the SDK, described by the document."""
    entries = {
        operation["operationId"]: operation for methods in spec["paths"].values() for operation in methods.values()
    }
    tools: dict[str, ToolSpec] = {}
    for operation in OPERATIONS.values():
        entry = entries[operation.id]
        properties: dict[str, Any] = {}
        if "requestBody" in entry:
            properties.update(_body_properties(spec, operation, entry["requestBody"]))
        for parameter in entry.get("parameters", []):
            if parameter["in"] == "query":
                schema = _plain(_resolve(spec, parameter["schema"]))
                properties[parameter["name"]] = {**schema, "description": parameter.get("description", "")}
        if operation.result in ("bytes", "media"):
            properties[OUTPUT_PATH] = {
                "type": "string",
                "description": "Write the output file here (images are also returned as image content).",
            }
        files = " Give each input file as a local path (*_path) or as Base64 (*_base64)." if operation.files else ""
        description = f"{entry.get('summary', '')}. {entry.get('description', '')}{files}".strip()
        tools[operation.id] = ToolSpec(
            name=operation.id,
            title=entry.get("summary", operation.id),
            description=description,
            input_schema={
                "type": "object",
                "properties": properties,
                "required": _required(spec, operation, entry),
                "additionalProperties": False,
            },
            operation=operation,
            read_only=not operation.id.startswith("keys_"),
        )
    return tools


def _decode_base64(value: Any, name: str) -> bytes:
    if not isinstance(value, str):
        raise ValueError(f"{name}: a Base64 string is expected")
    try:
        return base64.b64decode(value, validate=False)
    except ValueError as exc:
        raise ValueError(f"{name}: not valid Base64 ({exc})") from None


def sdk_arguments(tool: ToolSpec, arguments: dict[str, Any]) -> dict[str, Any]:
    """The SDK call's arguments from a tool call's: files read from paths or decoded from Base64."""
    operation = tool.operation
    unknown = set(arguments) - set(tool.input_schema["properties"])
    if unknown:
        raise ValueError(f"unknown argument(s): {', '.join(sorted(unknown))}")
    missing = [name for name in tool.input_schema["required"] if arguments.get(name) is None]
    if missing:
        raise ValueError(f"missing argument(s): {', '.join(missing)}")
    result = {name: value for name, value in arguments.items() if name != OUTPUT_PATH}
    for name in operation.files:
        many = f"{name}_paths" in tool.input_schema["properties"]
        path_key, data_key = (f"{name}_paths", f"{name}_base64") if many else (f"{name}_path", f"{name}_base64")
        paths, data = result.pop(path_key, None), result.pop(data_key, None)
        if (paths is None) == (data is None):
            raise ValueError(f"give exactly one of {path_key} and {data_key}")
        if many:
            values = paths if paths is not None else data
            if not isinstance(values, list) or not values:
                raise ValueError(f"{path_key if paths is not None else data_key}: a non-empty array is expected")
            result[name] = list(values) if paths is not None else [_decode_base64(item, data_key) for item in values]
        else:
            result[name] = paths if paths is not None else _decode_base64(data, data_key)
    return result
