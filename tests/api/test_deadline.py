"""Conversions answer within FILEAPI_DEADLINE_SECONDS: conversion_failed at the deadline, not counted."""

from __future__ import annotations

import io
import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from PIL import Image

from fileapi.convert import deadline
from fileapi.errors import ConversionFailed
from fileapi.settings import get_settings
from tests.helpers import auth


def test_check_raises_once_the_budget_is_spent() -> None:
    deadline.check()  # no budget: nothing to spend
    with deadline.budget(60):
        deadline.check()
    with deadline.budget(0.01), pytest.raises(ConversionFailed, match=r"within the 0.01 s limit"):
        time.sleep(0.02)
        deadline.check()
    deadline.check()  # the budget ended with its block


@pytest.fixture()
def slow_barcode_read(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The Codes function's barcode reader replaced by one that works for 10 s, checking the deadline between
    passes as the real one does between its decoding passes; returns when each call ended."""
    from fileapi.local.template import load_function_module, load_functions

    ended: list[float] = []

    def read_for_ten_seconds(data: bytes, **_: object) -> object:
        try:
            started = time.monotonic()
            while time.monotonic() - started < 10:
                time.sleep(0.05)
                deadline.check()
            raise AssertionError("the deadline never stopped the conversion")
        finally:
            ended.append(time.monotonic())

    (codes,) = [spec for spec in load_functions() if spec.logical_id == "CodesFunction"]
    module = load_function_module(codes)
    name = next(name for name in ("read_codes", "read_barcodes") if hasattr(module, name))
    monkeypatch.setattr(module, name, read_for_ten_seconds)
    return ended


@pytest.fixture()
def one_second_deadline(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("FILEAPI_DEADLINE_SECONDS", "1")
    get_settings.cache_clear()
    yield
    monkeypatch.delenv("FILEAPI_DEADLINE_SECONDS")
    get_settings.cache_clear()


def test_a_conversion_past_the_deadline_is_conversion_failed_and_not_counted(
    api: TestClient, key: str, slow_barcode_read: list[float], one_second_deadline: None
) -> None:
    # GIVEN a conversion that would take 10 s, and a deadline of 1 s
    used = api.get("/v1/usage", headers=auth(key)).json()["used_this_month"]
    image = io.BytesIO()
    Image.new("L", (64, 64), 255).save(image, "PNG")
    # WHEN it is asked for
    started = time.monotonic()
    cut = api.post("/v1/barcode/read", content=image.getvalue(), headers=auth(key))
    cut_seconds = time.monotonic() - started
    # THEN the answer comes at the deadline: 500 conversion_failed, in our words, and not counted
    assert (cut.status_code, cut.json()["error"]) == (500, "conversion_failed")
    assert "within the 1 s limit" in cut.json()["message"]
    assert 1 <= cut_seconds < 3, cut_seconds
    assert api.get("/v1/usage", headers=auth(key)).json()["used_this_month"] == used
    # AND the abandoned work stopped at its next check, not 10 s later
    deadline_passed = time.monotonic()
    while not slow_barcode_read and time.monotonic() - deadline_passed < 5:
        time.sleep(0.05)
    assert slow_barcode_read and slow_barcode_read[0] - started < 3
