"""The process-wide service objects."""

from __future__ import annotations


def test_snapstart_reset_drops_the_service_objects() -> None:
    import fileapi.services as services
    from tests.memory_stores import memory_stores

    services.use_stores(memory_stores())
    marker = object()
    services._keys = marker  # type: ignore[assignment]
    services.reset_after_restore()
    assert services._keys is None and services._meter is None and services._stores is None


def test_snapstart_reset_forgets_the_request_ids_drawn_ahead() -> None:
    import fileapi.services as services
    from fileapi.web import logs

    logs.random_request_id()
    services.reset_after_restore()
    assert logs._drawn == []


def test_request_metrics_are_embedded_metric_format(capsys: object) -> None:
    import json

    import pytest

    from fileapi.web.logs import emit_request_metrics

    assert isinstance(capsys, pytest.CaptureFixture)
    emit_request_metrics(
        {
            "route": "/v1/data/json-format",
            "status": 400,
            "latency_ms": 3.5,
            "bytes_in": 4,
            "error": "invalid_input",
            "metering": "not_counted",
        }
    )
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    lines = [{key: value[0] if isinstance(value, list) else value for key, value in line.items()} for line in lines]
    first = lines[0]
    assert first["route"] == "/v1/data/json-format" and first["status"] == "4xx"
    assert first["Requests"] == 1 and first["Latency"] == 3.5
    directives = first["_aws"]["CloudWatchMetrics"][0]
    assert directives["Namespace"] == "FileApi"
    assert {metric["Name"] for metric in directives["Metrics"]} == {"Requests", "Latency", "BytesIn", "BytesOut"}
    assert lines[1]["Errors"] == 1 and lines[1]["status"] == "400" and lines[1]["code"] == "invalid_input"
    assert lines[2]["Metering"] == 1 and lines[2]["outcome"] == "not_counted"
