"""The files that derive from the catalogue (fileapi.catalogue): the routes in template.yaml, the sample events
in events/, and the conversion tables of docs/api.md. `fileapi catalogue` prints what is stale; `fileapi catalogue
--write` (run by `make openapi`) writes them; tests/build/test_catalogue_derived.py fails on any that is stale.

A conversion's template route and event keep their names once written (CloudFormation names the route's
resources after them); a new conversion gets `<Family><Name>` and events/<family>-<name>.json.
"""

from __future__ import annotations

import base64
import json
import re
import typing
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from fileapi.catalogue.declaration import ANY, IMAGE, PDF, SVG, Conversion, Reads
from fileapi.catalogue.registry import FAMILIES, every, family
from fileapi.local.template import PROJECT_ROOT

TEMPLATE = PROJECT_ROOT / "template.yaml"
EVENTS = PROJECT_ROOT / "events"
API_DOC = PROJECT_ROOT / "docs" / "api.md"
SAMPLES = PROJECT_ROOT / "examples"
EVENT_LINE = re.compile(
    r"^ {8}(\w+):\n {10}Type: HttpApi\n {10}Properties: \{ApiId: !Ref HttpApi, Path: (\S+), Method: (\w+)\}\n", re.M
)
SAMPLE_KEY = "sk_live_SAMPLEsampleSAMPLEsampleSAMPLEsample12345"
TABLE_START = "<!-- catalogue:{family} (fileapi catalogue --write) -->\n"
TABLE_END = "<!-- /catalogue:{family} -->\n"


def function_name(family_name: str) -> str:
    """The template's logical id of a family's function: `pdf` is PdfFunction."""
    return family_name.capitalize() + "Function"


def _camel(text: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[^A-Za-z0-9]+", text) if part)


def _function_block(text: str, logical_id: str) -> tuple[int, int]:
    """Where the `Events:` entries of a function's properties start and end in the template's text."""
    start = text.index(f"\n  {logical_id}:\n") + 1
    end = text.find("\n  ", text.index("\n", start) + 1)
    while end != -1 and text[end + 3] == " ":  # deeper indentation: still inside the function
        end = text.find("\n  ", end + 1)
    end = len(text) if end == -1 else end + 1
    events = text.index("      Events:\n", start, end) + len("      Events:\n")
    last = events
    for match in EVENT_LINE.finditer(text, events, end):
        if match.start() != last:
            break
        last = match.end()
    return events, last


def template_routes(text: str) -> str:
    """The template's text with each family function's routes those of its conversions, in their order: an
    existing route keeps its name, a new one is named after its conversion."""
    for name in FAMILIES:
        events, last = _function_block(text, function_name(name))
        existing = {match.group(2): match.group(1) for match in EVENT_LINE.finditer(text, events, last)}
        lines = []
        for conversion in family(name):
            event = existing.get(conversion.path) or _camel(conversion.name)
            lines.append(
                f"        {event}:\n          Type: HttpApi\n          Properties: {{ApiId: !Ref HttpApi, "
                f"Path: {conversion.path}, Method: POST}}\n"
            )
        text = text[:events] + "".join(lines) + text[last:]
    return text


def event_path(conversion: Conversion) -> Path:
    """The conversion's sample event: the one naming its route, else events/<family>-<name>.json."""
    for path in sorted(EVENTS.glob("*.json")):
        if json.loads(path.read_text(encoding="utf-8")).get("routeKey") == f"POST {conversion.path}":
            return path
    return EVENTS / (conversion.name.replace("/", "-") + ".json")


def sample_event(conversion: Conversion) -> dict[str, Any]:
    """An API Gateway v2 event of a valid request to the conversion: its example options, the sample input of
    what it takes (examples/)."""
    body, content_type = _sample_body(conversion)
    query = "&".join(f"{name}={value}" for name, value in _example_query(conversion).items())
    headers = {
        "host": "abc123.execute-api.us-east-1.amazonaws.com",
        "user-agent": "curl/8.5.0",
        "accept": "*/*",
        "content-type": content_type,
        "authorization": f"Bearer {SAMPLE_KEY}",
        "content-length": str(len(body)),
    }
    route_key = f"POST {conversion.path}"
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": route_key,
        "rawPath": conversion.path,
        "rawQueryString": query,
        "headers": headers,
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "abc123",
            "domainName": "abc123.execute-api.us-east-1.amazonaws.com",
            "domainPrefix": "abc123",
            "http": {
                "method": "POST",
                "path": conversion.path,
                "protocol": "HTTP/1.1",
                "sourceIp": "203.0.113.7",
                "userAgent": "curl/8.5.0",
            },
            "requestId": "JKJaXmPLvHcESHA=",
            "routeKey": route_key,
            "stage": "$default",
            "time": "21/Nov/2026:12:00:00 +0000",
            "timeEpoch": 1795262400000,
        },
        "isBase64Encoded": True,
        "body": base64.b64encode(body).decode("ascii"),
    }
    if query:
        event["queryStringParameters"] = _example_query(conversion)
    return event


def _example_query(conversion: Conversion) -> dict[str, str]:
    if conversion.takes.reads in (Reads.JSON, Reads.FORM_FILL):
        return {}
    return {name: str(value) for name, value in conversion.example.items()}


def sample_input(accepts: str) -> tuple[bytes, str]:
    """The sample file of a kind (examples/), and its media type."""
    if accepts == PDF:
        return (SAMPLES / "a.pdf").read_bytes(), PDF
    if accepts == IMAGE:
        return (SAMPLES / "photo.jpg").read_bytes(), "image/jpeg"
    if accepts == SVG:
        return (SAMPLES / "logo.svg").read_bytes(), SVG
    return b"hello", "application/octet-stream" if accepts == ANY else accepts


def _sample_body(conversion: Conversion) -> tuple[bytes, str]:
    takes = conversion.takes
    if takes.reads is Reads.JSON:
        return json.dumps(dict(conversion.example)).encode(), "application/json"
    if takes.example is not None:
        example = takes.example if isinstance(takes.example, str) else json.dumps(takes.example)
        return example.encode(), takes.accepts
    data, media_type = sample_input(takes.accepts)
    if takes.reads is Reads.FILES:
        return _multipart([("files", data, media_type), ("files", data, media_type)])
    if takes.reads is Reads.FORM_FILL:
        document = base64.b64encode(data).decode("ascii")
        return json.dumps({"pdf": document, **conversion.example}).encode(), "application/json"
    return data, media_type


def _multipart(parts: Iterable[tuple[str, bytes, str]]) -> tuple[bytes, str]:
    boundary = "sampleboundary7MA4YWxkTrZu0gW"
    body = b""
    for index, (name, data, media_type) in enumerate(parts, start=1):
        body += (
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{index}"\r\n'
                f"Content-Type: {media_type}\r\n\r\n"
            ).encode()
            + data
            + b"\r\n"
        )
    return body + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def _options(conversion: Conversion) -> str:
    """The options column: each option's wire name, `(required)` or its default."""
    model = conversion.options
    if model is None:
        return ""
    cells = []
    for name, info in model.model_fields.items():
        wire = info.alias or name
        if info.is_required():
            cells.append(f"`{wire}` (required)")
        elif typing.get_origin(info.annotation) is list:
            cells.append(f"`{wire}` (repeatable)")
        elif info.default is None:
            cells.append(f"`{wire}`")
        else:
            default = info.default.value if hasattr(info.default, "value") else info.default
            cells.append(f"`{wire}` ({json.dumps(default) if not isinstance(default, str) else default})")
    return ", ".join(cells)


def _answer(conversion: Conversion) -> str:
    gives = conversion.gives
    if gives.model is not None:
        fields = ", ".join(info.alias or name for name, info in gives.model.model_fields.items() if name != "root")
        return f"JSON `{{{fields}}}`" if fields else "JSON"
    types = ", ".join(f"`{media_type}`" for media_type in gives.media_types) or "`application/octet-stream`"
    return f"{types}: {gives.doc.lower()}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def docs_table(family_name: str) -> str:
    """The family's conversion table of docs/api.md: endpoint, what it does, options, answer."""
    rows = [
        f"| `POST {c.path}` | {_cell(c.description)} | {_options(c)} | {_answer(c)} |\n".replace(" |  |", " | |")
        for c in family(family_name)
    ]
    header = "| endpoint | what it does | options (default) | answer |\n|---|---|---|---|\n"
    return TABLE_START.format(family=family_name) + header + "".join(rows) + TABLE_END.format(family=family_name)


def documented(text: str) -> str:
    """docs/api.md's text with each family's table between its markers made again from the catalogue."""
    for name in FAMILIES:
        start = text.index(TABLE_START.format(family=name))
        end = text.index(TABLE_END.format(family=name), start) + len(TABLE_END.format(family=name))
        text = text[:start] + docs_table(name) + text[end:]
    return text


def stale() -> list[Path]:
    """The derived files that differ from what the catalogue makes."""
    found = []
    if template_routes(TEMPLATE.read_text(encoding="utf-8")) != TEMPLATE.read_text(encoding="utf-8"):
        found.append(TEMPLATE)
    if documented(API_DOC.read_text(encoding="utf-8")) != API_DOC.read_text(encoding="utf-8"):
        found.append(API_DOC)
    found += [event_path(c) for c in every() if not event_path(c).exists()]
    return found


def write() -> list[Path]:
    """Write the stale derived files (an existing event is kept: it may hold a richer sample); the written paths."""
    written = stale()
    TEMPLATE.write_text(template_routes(TEMPLATE.read_text(encoding="utf-8")), encoding="utf-8")
    API_DOC.write_text(documented(API_DOC.read_text(encoding="utf-8")), encoding="utf-8")
    for conversion in every():
        path = event_path(conversion)
        if not path.exists():
            path.write_text(json.dumps(sample_event(conversion), indent=2) + "\n", encoding="utf-8")
    return written
