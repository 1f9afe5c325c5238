"""Access records: one JSON record per request with the agreed fields; no content, no whole keys."""

from __future__ import annotations

import io
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from datetime import datetime

import pytest
from fastapi.testclient import TestClient

from fileapi.local import runner
from fileapi.settings import get_settings, load_settings
from tests.conftest import MakeKey
from tests.helpers import auth

SENTINEL = "SENTINEL-7f3a9c"


def records(output: str) -> list[dict[str, object]]:
    found = []
    for line in output.splitlines():
        if line.startswith("{"):
            found.append(json.loads(line))
    return found


def test_access_record_fields_without_content_or_key(api: TestClient, key: str, log_output: io.StringIO) -> None:
    response = api.post("/v1/data/url-encode", params={"form": "true"}, content=SENTINEL.encode(), headers=auth(key))
    assert response.status_code == 200
    bad = api.post("/v1/data/json-format", content=f'{{"{SENTINEL}": nope}}'.encode(), headers=auth(key))
    assert bad.status_code == 400
    assert SENTINEL not in bad.text
    unknown = api.post("/v1/data/url-encode", params={"form": "true", "x": SENTINEL}, content=b"a", headers=auth(key))
    assert unknown.status_code == 400  # an unknown parameter, named; its value is not echoed
    assert SENTINEL not in unknown.text
    output = log_output.getvalue()
    assert SENTINEL not in output
    assert key not in output
    access = [record for record in records(output) if record.get("message") == "request"]
    assert len(access) == 3
    first = access[0]
    assert first["route"] == "/v1/data/url-encode"
    assert first["status"] == 200
    assert first["bytes_in"] == len(SENTINEL)
    assert first["bytes_out"] == len(response.content)
    assert first["key_prefix"] == key[:12]
    assert isinstance(first["latency_ms"], float)
    assert first["request_id"] == response.headers["X-Request-Id"]
    assert first["metering"] == "counted" and "error" not in first
    assert access[1]["status"] == 400
    assert access[1]["error"] == "invalid_input" and access[1]["metering"] == "refunded"


def test_access_record_names_metering_refusals(api: TestClient, make_key: MakeKey, log_output: io.StringIO) -> None:
    assert api.post("/v1/data/base64-encode", content=b"x").status_code == 401
    inactive = make_key(status="canceled")
    assert api.post("/v1/data/base64-encode", content=b"x", headers=auth(inactive)).status_code == 403
    assert api.get("/v1/usage", headers=auth(make_key())).status_code == 200
    assert api.get("/health").status_code == 200
    access = [record for record in records(log_output.getvalue()) if record.get("message") == "request"]
    assert [(record.get("error"), record.get("metering")) for record in access] == [
        ("unauthorized", "unauthorized"),
        ("subscription_inactive", "subscription_inactive"),
        (None, "not_counted"),
        (None, None),
    ]


def test_unexpected_errors_are_logged_without_their_message(
    api: TestClient, key: str, log_output: io.StringIO, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pybase64

    def explode(data: bytes, **_: object) -> bytes:
        raise RuntimeError(f"boom {data.decode()}")

    monkeypatch.setattr(pybase64, "b64encode", explode)  # inside the converter, imported when it runs
    response = api.post("/v1/data/base64-encode", content=SENTINEL.encode(), headers=auth(key))
    assert response.status_code == 500
    assert response.json()["error"] == "internal_error"
    assert SENTINEL not in response.text
    output = log_output.getvalue()
    assert SENTINEL not in output
    assert any(record.get("exception_type") == "RuntimeError" for record in records(output))


def test_credentials_that_are_not_api_keys_are_not_logged(api: TestClient, log_output: io.StringIO) -> None:
    response = api.post("/v1/data/json-minify", content=b"[]", headers={"Authorization": "Basic c2VjcmV0OnNlY3JldA=="})
    assert response.status_code == 401
    assert "c2VjcmV0" not in log_output.getvalue()
    assert "key_prefix" not in records(log_output.getvalue())[-1]


def test_the_access_record_is_the_line_powertools_writes(
    log_output: io.StringIO, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fileapi.telemetry import logger
    from fileapi.web.logs import ACCESS_RECORD_LOCATION, write_access_record

    monkeypatch.setenv("_X_AMZN_TRACE_ID", "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1")
    record = {"request_id": "r-1", "method": "POST", "status": 200, "route": "/v1/file/hash", "latency_ms": 0.5,
              "key_prefix": "sk_live_abcd", "metering": "counted", "error": None, "bytes_in": 3}  # fmt: skip
    logger.append_keys(function_name="DataFunction", cold_start=False, correlation_id="c-1")
    try:
        write_access_record(record)
        logger.info("request", extra=record)
    finally:
        logger.remove_keys(["function_name", "cold_start", "correlation_id"])
    ours, powertools = (json.loads(line) for line in log_output.getvalue().splitlines())
    assert ours.pop("location") == ACCESS_RECORD_LOCATION
    powertools.pop("location")
    moments = [datetime.strptime(line.pop("timestamp"), "%Y-%m-%d %H:%M:%S,%f%z") for line in (ours, powertools)]
    assert abs(moments[0] - moments[1]).total_seconds() < 5  # the same format, the same moment
    assert list(ours.items()) == list(powertools.items())  # the same keys in the same order, the same values
    assert ours["xray_trace_id"] == "1-5759e988-bd862e3fe1be46a994272793" and "error" not in ours


@pytest.fixture()
def access_log_style(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], None]]:
    """Set FILEAPI_ACCESS_LOG for the test (the settings read again)."""

    def choose(style: str) -> None:
        monkeypatch.setenv("FILEAPI_ACCESS_LOG", style)
        get_settings.cache_clear()

    yield choose
    get_settings.cache_clear()


def test_a_local_terminal_gets_one_readable_line_per_request(
    api: TestClient, key: str, log_output: io.StringIO, access_log_style: Callable[[str], None]
) -> None:
    access_log_style("line")
    assert api.post("/v1/data/base64-encode", content=SENTINEL.encode(), headers=auth(key)).status_code == 200
    assert api.post("/v1/data/json-format", content=b"{nope", headers=auth(key)).status_code == 400
    lines = log_output.getvalue().splitlines()
    pattern = r"\d\d:\d\d:\d\d  POST  /v1/data/{}  {}  \d+ ms  {} B in  \d+ B out  {}"
    assert re.fullmatch(pattern.format("base64-encode", 200, len(SENTINEL), f"{key[:12]}  counted"), lines[0])
    assert re.fullmatch(pattern.format("json-format", 400, 5, f"invalid_input  {key[:12]}  refunded"), lines[1])
    assert api.post("/v1/data/base64-encode", content=b"x").status_code == 401
    assert re.fullmatch(pattern.format("base64-encode", 401, 0, "unauthorized"), log_output.getvalue().splitlines()[2])
    assert SENTINEL not in log_output.getvalue() and key not in log_output.getvalue()


def test_access_records_can_be_turned_off(
    api: TestClient, key: str, log_output: io.StringIO, access_log_style: Callable[[str], None]
) -> None:
    access_log_style("off")
    assert api.post("/v1/data/base64-encode", content=b"x", headers=auth(key)).status_code == 200
    assert log_output.getvalue() == ""


def test_a_mistyped_access_log_style_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FILEAPI_ACCESS_LOG", "pretty")
    with pytest.raises(ValueError, match="FILEAPI_ACCESS_LOG must be one of json, line, off, not 'pretty'"):
        load_settings()


@pytest.mark.parametrize(
    ("terminal", "chosen", "style"), [(True, None, "line"), (False, None, None), (True, "json", "json")]
)
def test_the_local_server_writes_readable_lines_on_a_terminal_only(
    monkeypatch: pytest.MonkeyPatch, terminal: bool, chosen: str | None, style: str | None
) -> None:
    class Output(io.StringIO):
        def isatty(self) -> bool:
            return terminal

    monkeypatch.setattr(sys, "stdout", Output())
    # set, then removed: monkeypatch records the variable either way, so what the runner sets is undone after
    monkeypatch.setenv("FILEAPI_ACCESS_LOG", "json")
    if chosen is None:
        monkeypatch.delenv("FILEAPI_ACCESS_LOG")
    else:
        monkeypatch.setenv("FILEAPI_ACCESS_LOG", chosen)
    runner._readable_logs_on_a_terminal()
    assert os.environ.get("FILEAPI_ACCESS_LOG") == style
