"""A request's conversion that ran out of time: its answer names the operation where operations run."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from fileapi.convert.deadline import exceeded_message
from fileapi.errors import OutOfTime, TooLarge
from fileapi.settings import get_settings
from fileapi.web import conversions


def convert(data: bytes) -> bytes:
    return data


@pytest.fixture
def out_of_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every worker job ends at the 20 s deadline."""

    async def stopped(function: Any, *args: Any, **kwargs: Any) -> Any:
        raise OutOfTime(exceeded_message(20))

    monkeypatch.setattr(conversions, "run_in_worker", stopped)


@pytest.fixture
def queue(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("FILEAPI_OPERATIONS_QUEUE_URL", "http://127.0.0.1:1/queue/operations")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.mark.usefixtures("out_of_time", "queue")
def test_a_request_out_of_time_is_told_to_send_it_as_an_operation() -> None:
    with pytest.raises(OutOfTime) as stopped:
        asyncio.run(conversions.isolated(convert, b"x"))
    assert stopped.value.message == (
        "the conversion did not finish within the 20 s limit; send a smaller or simpler input (fewer pixels, "
        "pages or elements); or send the same request with the header `Prefer: respond-async` to run it as an "
        "operation, whose time limit is longer"
    )
    assert stopped.value.http_status == 413 and stopped.value.code == "too_large"


@pytest.mark.usefixtures("out_of_time")
def test_without_operations_the_answer_names_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FILEAPI_OPERATIONS_QUEUE_URL", raising=False)
    get_settings.cache_clear()
    try:
        with pytest.raises(OutOfTime) as stopped:
            asyncio.run(conversions.isolated(convert, b"x"))
    finally:
        get_settings.cache_clear()
    assert stopped.value.message == exceeded_message(20)


@pytest.mark.usefixtures("queue")
def test_other_refusals_pass_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    async def too_big(function: Any, *args: Any, **kwargs: Any) -> Any:
        raise TooLarge("the worker ran out of its 1,024 MiB")

    monkeypatch.setattr(conversions, "run_in_worker", too_big)
    with pytest.raises(TooLarge) as refused:
        asyncio.run(conversions.isolated(convert, b"x"))
    assert refused.value.message == "the worker ran out of its 1,024 MiB"
