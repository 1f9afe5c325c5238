"""Structured JSON logging (aws-lambda-powertools Logger) and the per-request access record.

A record holds the request id, the matched route's template, status, the error code, the
metering outcome, latency, byte counts and the key's first 12 characters: never body content,
query values or whole keys.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import time
from typing import Any

from starlette.types import Scope

from fileapi.errors import ALL_ERRORS
from fileapi.services import also_after_restore
from fileapi.settings import get_settings, xray_trace_id
from fileapi.telemetry import METRICS_NAMESPACE, _stdlib_logger, logger

# Set in the request's state when the client went away before its body arrived (web.front_door.FrontDoor).
CLIENT_DISCONNECTED = "client_disconnected"
CLIENT_CLOSED_REQUEST = 499  # the access record's status then (nginx's code); never sent: nobody is listening


# The access record's `location`, as Powertools would give it (the function and line that log it).
ACCESS_RECORD_LOCATION = "FrontDoor.__call__"
_MESSAGE_KEYS = {"level": "INFO", "location": ACCESS_RECORD_LOCATION, "message": "request"}


def write_access_record(record: dict[str, Any]) -> None:
    """One INFO line "request" with `record`'s fields, in Powertools' layout: the logger's keys (its format's and
    the appended ones, from `Logger.get_current_keys`) in their order, its timestamp format, `record`, then
    `xray_trace_id`, None values left out. Written by this module to the stream of each handler with Powertools'
    formatter: logging's record, caller lookup, filters and formatter cost as much as the rest of a small
    request's stack (tests/api/test_logging.py holds the line equal to the one logger.info writes). Another
    handler gets a LogRecord, as logger.info would give it. FILEAPI_ACCESS_LOG=line writes `readable_access_line`
    instead (a local server on a terminal), `off` nothing."""
    style = get_settings().access_log
    if style == "off" or not _stdlib_logger.isEnabledFor(logging.INFO):
        return
    powertools = logger.registered_formatter
    for handler in _stdlib_logger.handlers:
        if handler.formatter is powertools and isinstance(handler, logging.StreamHandler):
            keys = powertools.get_current_keys()  # logger.get_current_keys(), without finding the formatter again
            line = (readable_access_line(record) if style == "line" else _access_line(record, keys)) + "\n"
            with handler.lock or contextlib.nullcontext():  # other threads log through the same handler
                handler.stream.write(line)
                handler.stream.flush()
        elif handler.level <= logging.INFO:
            handler.handle(
                _stdlib_logger.makeRecord(logger.name, logging.INFO, __file__, 0, "request", (), None, extra=record)
            )


def _access_line(record: dict[str, Any], keys: dict[str, Any] | None = None) -> str:
    """The JSON line of `record` (see write_access_record), after the logger's `keys` (default: its current ones)."""
    if keys is None:
        keys = logger.get_current_keys()
    template = _line_template(keys)
    if (
        template is None
        or not record
        or not keys.keys().isdisjoint(record)  # each key replaced in its place
        or not _RECORD_SETS.isdisjoint(record)
        or None in record.values()
    ):
        return _joined_line(keys, record)
    head, middle = template
    fields = _dumped(record)
    trace = xray_trace_id()
    end = fields[1:] if trace is None else f'{fields[1:-1]},"xray_trace_id":{_dumped(trace)}}}'
    return head + log_timestamp(time.time()) + middle + end


# The keys each line sets itself, after the logger's: a record holding one takes the general way (`_joined_line`).
_RECORD_SETS = frozenset({"timestamp", "xray_trace_id"})
# The logger's keys as last seen, and the line they start, as text around its timestamp (message keys in place,
# None values out): the same for every request until Powertools' keys change (a Lambda invocation's). A line is
# then this text, the timestamp and the record's own JSON: one encoding of the record's few keys, where encoding a
# merged copy of the keys and the record cost 11 us of a metered request's ~70 (`make bench-quick`).
_last_keys: tuple[dict[str, Any], tuple[str, str] | None] = ({}, None)
_EMPTY_TIMESTAMP = '"timestamp":""'


def _line_template(keys: dict[str, Any]) -> tuple[str, str] | None:
    """A line under `keys` as (its text up to the timestamp's value, from after it up to the record's fields); None
    where the message keys are not all Powertools' own, in place, or an appended key is the trace id's, which each
    line sets."""
    global _last_keys
    seen, template = _last_keys
    if keys == seen:
        return template
    template = None
    if _MESSAGE_KEYS.keys() <= keys.keys() and "xray_trace_id" not in keys:
        base = {key: value for key, value in (keys | _MESSAGE_KEYS).items() if value is not None or key == "timestamp"}
        base["timestamp"] = ""  # in its place among the keys, or after them, as `_joined_line` puts it
        text = _dumped(base)
        at = text.index(_EMPTY_TIMESTAMP)  # the key's own: a value's quotes are escaped
        after = text[at + len(_EMPTY_TIMESTAMP) : -1]
        template = (text[:at] + '"timestamp":"', '"' + after + ",")
    _last_keys = (dict(keys), template)
    return template


def _joined_line(keys: dict[str, Any], record: dict[str, Any]) -> str:
    line: dict[str, Any] = {key: _MESSAGE_KEYS.get(key, value) for key, value in keys.items()}
    line["timestamp"] = log_timestamp(time.time())
    line.update(record)
    line["xray_trace_id"] = xray_trace_id()
    return _dumped({key: value for key, value in line.items() if value is not None})


def _dumped(line: object) -> str:
    # orjson, where Powertools writes json.dumps(line, default=str, separators=(",", ":")): the same JSON value
    # (tests/api/test_logging.py), 1 us where the standard library's encoder took 9 for a Lambda's 21 keys. An
    # integer past 64 bits, which orjson refuses, is written by the standard library's. Imported here: the Health
    # function's cold import would take 3.8 ms more (orjson imports uuid and platform), a request 0.1 us.
    import orjson

    try:
        return orjson.dumps(line, default=str).decode()
    except orjson.JSONEncodeError:
        return json.dumps(line, default=str, separators=(",", ":"))


# The last second formatted (log_timestamp): its whole seconds, their local time and the UTC offset.
_last_second: tuple[int, str, str] = (-1, "", "")


def readable_access_line(record: dict[str, Any]) -> str:
    """The access record as one line for a person at a terminal: local time, method, route, status, latency, bytes
    in and out, then the error code, key prefix and metering outcome when there are any (the same fields as the
    JSON record: nothing of the content)."""
    parts = [
        time.strftime("%H:%M:%S"),
        str(record["method"]),
        str(record["route"]),
        str(record["status"]),
        f"{float(record['latency_ms']):.0f} ms",
        f"{int(record['bytes_in']):,} B in",
        f"{int(record['bytes_out']):,} B out",
    ]
    parts += [str(record[name]) for name in ("error", "key_prefix") if record.get(name)]
    if record.get("metering") and record.get("metering") != record.get("error"):  # a metering refusal: said once
        parts.append(str(record["metering"]))
    return "  ".join(parts)


def log_timestamp(instant: float) -> str:
    """`instant` (epoch seconds) as Powertools writes a record's time: local time, milliseconds after a comma,
    then the UTC offset (2026-11-25 18:16:09,325+0000). The calendar is worked out once a second."""
    global _last_second
    whole = int(instant)
    second, local, offset = _last_second
    if second != whole:
        moment = time.localtime(instant)
        local, offset = time.strftime("%Y-%m-%d %H:%M:%S", moment), time.strftime("%z", moment)
        _last_second = (whole, local, offset)
    return f"{local},{int((instant - whole) * 1000):03d}{offset}"


_CODES = frozenset(error.code for error in ALL_ERRORS)
# Refusals by the metering layer itself (before or, for quota_exceeded, after the work).
_METERING_CODES = frozenset(
    {"unauthorized", "subscription_inactive", "rate_limited", "quota_exceeded", "service_unavailable"}
)


def error_code(body: bytes) -> str | None:
    """The ApiError code of an error body (only one of the API's own codes, never other text)."""
    if not body.startswith(b"{") or len(body) > 4096:
        return None
    try:
        code = json.loads(body).get("error")
    except (ValueError, AttributeError):
        return None
    return code if code in _CODES else None


def metering_outcome(admission: Any, status: int, code: str | None) -> str | None:
    """What metering did with a request: counted (a success that used a unit), not_counted (self-service),
    refunded (failed after admission: its unit given back), or the refusal's code; None for public routes."""
    if code in _METERING_CODES:
        return code
    if admission is None:
        return None
    if getattr(admission, "refunded", False):
        return "refunded"
    if getattr(admission, "counted", False) and status < 400:
        return "counted"
    return "not_counted"


def request_id_of(scope: Scope) -> str:
    """The request's id: the Lambda request id when there is one, else a random one (`random_request_id`)."""
    context = scope.get("aws.context")
    request_id = getattr(context, "aws_request_id", None)
    return str(request_id) if request_id else random_request_id()


# The bits a version-4 UUID fixes (RFC 9562): its version (4) and its variant (10).
_UUID4_CLEARED = ~((0xF000 << 64) | (0xC000 << 48))
_UUID4_SET = (4 << 76) | (0x8000 << 48)


# Request ids drawn from one os.urandom call: one system call per 64 requests instead of one per request.
_IDS_PER_DRAW = 64
_drawn: list[int] = []  # 128-bit random numbers not used yet; list.pop is atomic, so threads may share it


def _forget_drawn() -> None:
    _drawn.clear()


# A forked process, and each copy restored from a SnapStart snapshot, draws its own ids, never its parent's.
os.register_at_fork(after_in_child=_forget_drawn)
also_after_restore(_forget_drawn)


def random_request_id() -> str:
    """uuid.uuid4().hex (122 bits from os.urandom, the version and variant bits set), without the UUID object."""
    try:
        random = _drawn.pop()
    except IndexError:
        pool = os.urandom(16 * _IDS_PER_DRAW)
        _drawn.extend(int.from_bytes(pool[start : start + 16]) for start in range(16, len(pool), 16))
        random = int.from_bytes(pool[:16])
    return f"{random & _UUID4_CLEARED | _UUID4_SET:032x}"


def emit_request_metrics(record: dict[str, Any]) -> None:
    """CloudWatch embedded-metric-format records (namespace FileApi) per request: Requests, Latency,
    BytesIn and BytesOut by route and status class; Errors by status and code for 4xx and 5xx; and
    Metering by outcome (counted, not_counted, or the metering refusal's code)."""
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
        errors.add_dimension(name="code", value=str(record.get("error") or f"http_{status}"))
        errors.add_metric(name="Errors", unit=MetricUnit.Count, value=1)
        errors.flush_metrics()
    if record.get("metering"):
        metering = EphemeralMetrics(namespace=METRICS_NAMESPACE)
        metering.add_dimension(name="outcome", value=str(record["metering"]))
        metering.add_metric(name="Metering", unit=MetricUnit.Count, value=1)
        metering.flush_metrics()
