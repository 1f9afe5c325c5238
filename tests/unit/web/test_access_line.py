"""The access record's line is written with orjson, a timestamp formatted once a second and a request id without a
UUID object: each the same as the plain way of writing it (the logger's keys, the timestamp, the record and the
trace id, in that order, None left out: the same JSON value, whose text may differ in escapes;
tests/api/test_logging.py holds that line equal to Powertools' own)."""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fileapi.settings import xray_trace_id
from fileapi.telemetry import logger
from fileapi.web import logs

NAMES = ["request_id", "method", "status", "route", "error", "metering", "service", "timestamp", "level", "message"]
NAMES += ["xray_trace_id", "stage", "cold_start", "function_name", "é", "sampling_rate"]
VALUES = st.one_of(
    # finite floats: JSON has no infinity (json.dumps writes a bare Infinity, which JSON readers refuse)
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
    st.lists(st.integers()),
)
RECORDS = st.dictionaries(st.sampled_from(NAMES), VALUES, max_size=8)
APPENDED = st.dictionaries(st.sampled_from([name for name in NAMES if name != "timestamp"]), VALUES, max_size=3)
INSTANT = 1_800_000_000.5


def plainly(record: dict[str, Any], keys: dict[str, Any]) -> str:
    line: dict[str, Any] = {key: logs._MESSAGE_KEYS.get(key, value) for key, value in keys.items()}
    line["timestamp"] = logs.log_timestamp(INSTANT)
    line.update(record)
    line["xray_trace_id"] = xray_trace_id()
    return json.dumps({key: value for key, value in line.items() if value is not None}, separators=(",", ":"))


@contextmanager
def keys_appended(appended: dict[str, Any]) -> Iterator[None]:
    """The logger's keys with `appended` (some may replace the logger's own), as they were afterwards."""
    before = dict(logger.get_current_keys())
    logger.append_keys(**appended)
    try:
        yield
    finally:
        logger.remove_keys(list(logger.get_current_keys()))
        logger.append_keys(**before)


@settings(max_examples=300, deadline=None)
@given(record=RECORDS, appended=APPENDED, traced=st.booleans())
def test_the_line_is_the_plain_json_of_keys_timestamp_record_and_trace(
    record: dict[str, Any], appended: dict[str, Any], traced: bool
) -> None:
    with keys_appended(appended), pytest.MonkeyPatch.context() as patch:
        patch.setattr(time, "time", lambda: INSTANT)
        if traced:
            patch.setenv("_X_AMZN_TRACE_ID", "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=5399;Sampled=1")
        else:
            patch.delenv("_X_AMZN_TRACE_ID", raising=False)
        ours, plain = logs._access_line(record), plainly(record, logger.get_current_keys())
        assert list(json.loads(ours).items()) == list(json.loads(plain).items())  # the same keys in order, values


@settings(max_examples=500, deadline=None)
@given(instants=st.lists(st.floats(min_value=0, max_value=4e9), min_size=1, max_size=5))
def test_the_timestamp_is_powertools_format_whatever_second_came_before(instants: list[float]) -> None:
    for instant in instants:
        moment = time.localtime(instant)
        milliseconds = int((instant - int(instant)) * 1000)
        expected = f"{time.strftime('%Y-%m-%d %H:%M:%S', moment)},{milliseconds:03d}{time.strftime('%z', moment)}"
        assert logs.log_timestamp(instant) == expected


@given(random=st.binary(min_size=16, max_size=16))
def test_a_request_id_is_a_version_4_uuids_hex(random: bytes) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "urandom", lambda size: random * (size // 16))
        patch.setattr(logs, "_drawn", [])
        ids = [logs.random_request_id() for _ in range(logs._IDS_PER_DRAW + 1)]  # from one draw, then the next
        assert set(ids) == {uuid.UUID(bytes=random, version=4).hex}


def test_request_ids_are_drawn_afresh_after_a_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(logs, "_drawn", [])
    first = logs.random_request_id()  # the rest of its draw stays in this process
    assert len(logs._drawn) == logs._IDS_PER_DRAW - 1
    child = os.fork()
    if child == 0:  # the child: nothing of its parent's draw left
        os._exit(0 if not logs._drawn and logs.random_request_id() != first else 1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0


@pytest.mark.parametrize(
    "keys",
    [
        {"level": "%(levelname)s", "location": "x", "message": None, "service": "fileapi"},  # no timestamp
        {"service": "fileapi", "level": "%(levelname)s", "location": "x", "message": None, "timestamp": "t"},
        {"service": "fileapi"},  # not Powertools' message keys
    ],
)
@given(record=RECORDS)
def test_the_line_follows_any_keys_the_logger_is_given(keys: dict[str, Any], record: dict[str, Any]) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(time, "time", lambda: INSTANT)
        patch.delenv("_X_AMZN_TRACE_ID", raising=False)
        ours, plain = logs._access_line(record, keys), plainly(record, keys)
        assert list(json.loads(ours).items()) == list(json.loads(plain).items())
