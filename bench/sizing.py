"""Function sizing: per function, in a fresh process each, the import (init) time, the p50 of a
typical request through the function's Lambda handler (an API Gateway event, Mangum, the app), and
the peak resident memory after typical requests and after the largest input the limits allow.
docs/operations.md says how the memory sizes follow from it.

    python -m bench.sizing            # the table
    python -m bench.sizing CHILD NAME # one function (what the table runs)
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from fileapi.local.template import PROJECT_ROOT, load_functions
from tests.bombs import peak_rss_mib


@dataclass(frozen=True)
class Request:
    label: str
    method: str
    path: str
    build: Callable[[], bytes] = lambda: b""
    params: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/octet-stream"


def _jpeg(width: int, height: int) -> bytes:
    from PIL import Image

    gradient = Image.linear_gradient("L").resize((width, height))
    image = Image.merge("RGB", (gradient, gradient.rotate(90), gradient.transpose(Image.Transpose.FLIP_LEFT_RIGHT)))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=80)
    return out.getvalue()


def _pdf(pages: int) -> bytes:
    from tests.pdf_fixtures import make_pdf

    return make_pdf([f"Page {number} " + "text " * 200 for number in range(1, pages + 1)])


def _spec_text() -> bytes:
    return ("# Title\n\nSome *Markdown* with a [link](https://example.com) and `code`.\n\n- a\n- b\n\n" * 2500).encode()


SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200">'
    b'<circle cx="100" cy="100" r="80" fill="teal"/></svg>'
)
JSON = "application/json"
TEXT = "text/plain"
QR_OPTIONS = b'{"text": "https://example.com"}'

# Per function: (typical request, largest request the limits allow).
WORKLOADS: dict[str, tuple[Request, Request]] = {
    "HealthFunction": (Request("GET /health", "GET", "/health"), Request("GET /openapi.json", "GET", "/openapi.json")),
    "DataFunction": (
        Request("base64-encode 100 KB", "POST", "/v1/data/base64-encode", lambda: b"x" * 100_000),
        Request("json-minify 4.4 MB", "POST", "/v1/data/json-minify",
                lambda: json.dumps([{"id": i, "v": i * 1.25, "s": "text"} for i in range(100_000)]).encode()[:4_400_000]
                .rsplit(b"},", 1)[0] + b"}]", content_type=JSON),
    ),
    "ImageFunction": (
        Request("resize 12 MP JPEG to 800 px", "POST", "/v1/image/resize", lambda: _jpeg(4000, 3000), {"width": "800"}),
        Request("convert 50 MP JPEG to PNG", "POST", "/v1/image/convert", lambda: _jpeg(7071, 7071), {"to": "png"}),
    ),
    "PdfFunction": (
        Request("render-page 1 page, 150 dpi", "POST", "/v1/pdf/render-page", lambda: _pdf(3)),
        Request("extract-text of a 2 GiB flate bomb (256 MiB cap)", "POST", "/v1/pdf/extract-text",
                lambda: __import__("tests.hostile_files", fromlist=["flate_bomb_pdf"]).flate_bomb_pdf(2048)),
    ),
    "CodesFunction": (
        Request("qr/generate", "POST", "/v1/qr/generate", lambda: QR_OPTIONS, content_type=JSON),
        Request("barcode/read 50 MP", "POST", "/v1/barcode/read",
                lambda: __import__("tests.hostile_files", fromlist=["striped_image"]).striped_image(7071)),
    ),
    "RenderFunction": (
        Request("svg-to-png 200 px", "POST", "/v1/render/svg-to-png", lambda: SVG, content_type="image/svg+xml"),
        Request("svg-to-png 7000 px", "POST", "/v1/render/svg-to-png", lambda: SVG, {"width": "7000"},
                content_type="image/svg+xml"),
    ),
    "TextFunction": (
        Request("word-count 100 KB", "POST", "/v1/text/word-count", lambda: b"word " * 20_000, content_type=TEXT),
        Request("markdown-to-html 2 MB", "POST", "/v1/text/markdown-to-html", lambda: _spec_text()[:2_000_000],
                content_type="text/markdown"),
    ),
    "AccountFunction": (Request("GET /v1/usage", "GET", "/v1/usage"), Request("GET /v1/usage", "GET", "/v1/usage")),
}  # fmt: skip


def api_event(request: Request, body: bytes, key: str) -> dict[str, Any]:
    """The API Gateway HTTP API (payload 2.0) event of `request` with `body`, as Lambda hands it to the handler."""
    query = urlencode(request.params)
    return {
        "version": "2.0",
        "routeKey": f"{request.method} {request.path}",
        "rawPath": request.path,
        "rawQueryString": query,
        "headers": {
            "host": "abc123.execute-api.us-east-1.amazonaws.com",
            "content-type": request.content_type,
            "authorization": f"Bearer {key}",
            "content-length": str(len(body)),
        },
        "queryStringParameters": dict(request.params) or None,
        "requestContext": {
            "http": {"method": request.method, "path": request.path, "protocol": "HTTP/1.1", "sourceIp": "203.0.113.7"},
            "requestId": "sizing",
            "routeKey": f"{request.method} {request.path}",
            "stage": "$default",
        },
        "isBase64Encoded": True,
        "body": base64.b64encode(body).decode("ascii"),
    }


def measure(name: str, repeat: int = 15) -> dict[str, object]:
    """One function in this (fresh) process: its Lambda handler invoked with API Gateway events, as deployed."""
    started = time.perf_counter()
    spec = next(spec for spec in load_functions() if spec.logical_id == name)
    from fileapi.local.template import load_function_module

    module = load_function_module(spec)
    init_ms = 1000 * (time.perf_counter() - started)

    from fileapi.telemetry import logger
    from tests.helpers import LambdaContext, in_memory_metering

    logger.setLevel("WARNING")
    typical, largest = WORKLOADS[name]
    asyncio.set_event_loop(asyncio.new_event_loop())  # Mangum runs each invocation on the current loop
    with in_memory_metering("sizing@example.com") as key:

        def send(request: Request, body: bytes) -> int:
            event = api_event(request, body, key)
            return int(module.handler(event, LambdaContext(aws_request_id=uuid.uuid4().hex))["statusCode"])

        body = typical.build()
        status = send(typical, body)
        times = []
        for _ in range(repeat):
            sent = time.perf_counter()
            send(typical, body)
            times.append(time.perf_counter() - sent)
        typical_rss = peak_rss_mib()
        big = largest.build()
        sent = time.perf_counter()
        largest_status = send(largest, big)
        largest_ms = 1000 * (time.perf_counter() - sent)
    return {
        "function": name,
        "init_ms": init_ms,
        "typical": typical.label,
        "typical_status": status,
        "p50_ms": 1000 * statistics.median(times),
        "typical_peak_mib": typical_rss,
        "largest": largest.label,
        "largest_status": largest_status,
        "largest_ms": largest_ms,
        "largest_peak_mib": peak_rss_mib(),
    }


def memory_sizes() -> dict[str, int]:
    """MemorySize per function from template.yaml (the Globals default where not set)."""
    from fileapi.local.template import load_template

    template = load_template()
    default = int(template["Globals"]["Function"]["MemorySize"])
    parameters = template["Parameters"]

    def megabytes(value: Any) -> int:  # a number, or a parameter's name (!Ref): its default
        return int(parameters[value]["Default"]) if value in parameters else int(value)

    return {
        name: megabytes(resource_["Properties"].get("MemorySize", default))
        for name, resource_ in template["Resources"].items()
        if resource_.get("Type") == "AWS::Serverless::Function"
    }


def bench_sizing() -> dict[str, dict[str, Any]]:
    """Print the sizing table; return each function's measurements (the cost bench prices them)."""
    print("\nFunction sizing (fresh process each; Lambda gives 1 vCPU at 1769 MB)")
    sizes = memory_sizes()
    print(f"  {'function':<16} {'memory':>7} {'init':>8}  {'typical request':<30} {'p50':>9} {'peak':>7}"
          f"  {'largest allowed input':<50} {'time':>9} {'peak':>7}")  # fmt: skip
    measured: dict[str, dict[str, Any]] = {}
    for name in WORKLOADS:
        completed = subprocess.run(
            [sys.executable, "-m", "bench.sizing", "CHILD", name],
            cwd=PROJECT_ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=600,
        )
        row = measured[name] = json.loads(completed.stdout.splitlines()[-1])
        print(
            f"  {name.removesuffix('Function'):<16} {sizes[name]:>5} MB {row['init_ms']:6.0f} ms  "
            f"{row['typical']:<30} {row['p50_ms']:6.1f} ms {row['typical_peak_mib']:5.0f} MiB  "
            f"{row['largest'] + ' (' + str(row['largest_status']) + ')':<50} {row['largest_ms']:6.0f} ms "
            f"{row['largest_peak_mib']:5.0f} MiB"
        )
    return measured


if __name__ == "__main__":
    if sys.argv[1:2] == ["CHILD"]:
        print(json.dumps(measure(sys.argv[2])))
    else:
        bench_sizing()
