"""Structured JSON logging (aws-lambda-powertools Logger) and the per-request access record.

A record holds the request id, route, status, latency, byte counts and the key's first
12 characters: never body content, query values or whole keys.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from aws_lambda_powertools import Logger
from starlette.types import ASGIApp, Message, Receive, Scope, Send

logger = Logger(service="fileapi")
METRICS_NAMESPACE = "FileApi"


class AccessLogMiddleware:
    """Gives each request an id (the Lambda request id when there is one) and logs one record per request.

    The id is put in `scope["state"]["request_id"]` (metering uses it to count idempotently)
    and returned in the X-Request-Id header.
    """

    def __init__(self, app: ASGIApp, *, emit_metrics: bool = False) -> None:
        self.app = app
        self.emit_metrics = emit_metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = _request_id(scope)
        state = scope.setdefault("state", {})
        state["request_id"] = request_id
        started = time.perf_counter()
        record: dict[str, Any] = {"request_id": request_id, "method": scope["method"]}
        counts = {"bytes_in": 0, "bytes_out": 0, "status": 500}

        async def counting_receive() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                counts["bytes_in"] += len(message.get("body", b""))
            return message

        async def tagging_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                counts["status"] = message["status"]
                message["headers"] = [*message.get("headers", []), (b"x-request-id", request_id.encode())]
            elif message["type"] == "http.response.body":
                counts["bytes_out"] += len(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, counting_receive, tagging_send)
        finally:
            record.update(counts)
            # The matched route's template, never the raw path (an unknown path is the caller's text).
            record["route"] = getattr(scope.get("route"), "path", None) or "(no route)"
            record["latency_ms"] = round((time.perf_counter() - started) * 1000, 3)
            if "key_prefix" in state:
                record["key_prefix"] = state["key_prefix"]
            logger.info("request", extra=record)
            if self.emit_metrics:
                emit_request_metrics(record)


def _request_id(scope: Scope) -> str:
    context = scope.get("aws.context")
    request_id = getattr(context, "aws_request_id", None)
    return str(request_id) if request_id else uuid.uuid4().hex


def emit_request_metrics(record: dict[str, Any]) -> None:
    """CloudWatch embedded-metric-format records (namespace FileApi) per request: Requests, Latency,
    BytesIn and BytesOut by route and status class; and Errors by status for 4xx and 5xx."""
    from aws_lambda_powertools.metrics import EphemeralMetrics, MetricUnit

    status = int(record.get("status", 500))
    metrics = EphemeralMetrics(namespace=METRICS_NAMESPACE)
    metrics.add_dimension(name="route", value=str(record["route"]))
    metrics.add_dimension(name="status", value=f"{status // 100}xx")
    metrics.add_metric(name="Requests", unit=MetricUnit.Count, value=1)
    metrics.add_metric(name="Latency", unit=MetricUnit.Milliseconds, value=float(record.get("latency_ms", 0)))
    metrics.add_metric(name="BytesIn", unit=MetricUnit.Bytes, value=float(record.get("bytes_in", 0)))
    metrics.add_metric(name="BytesOut", unit=MetricUnit.Bytes, value=float(record.get("bytes_out", 0)))
    metrics.flush_metrics()
    if status >= 400:
        errors = EphemeralMetrics(namespace=METRICS_NAMESPACE)
        errors.add_dimension(name="status", value=str(status))
        errors.add_metric(name="Errors", unit=MetricUnit.Count, value=1)
        errors.flush_metrics()
