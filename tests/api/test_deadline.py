"""Conversions answer within FILEAPI_DEADLINE_SECONDS: conversion_failed at the deadline, not counted."""

from __future__ import annotations

import io
import random
import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from PIL import Image, ImageDraw

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


@pytest.fixture(scope="module")
def striped_image() -> bytes:
    """49 megapixels of diagonal lines: no barcode, and several seconds of decoding passes."""
    rng = random.Random(1)
    image = Image.new("L", (7000, 7000), 255)
    draw = ImageDraw.Draw(image)
    for offset in range(0, 7000, 7):
        draw.line([(offset, 0), (7000 - offset, 7000)], fill=rng.choice([0, 128]), width=2)
    out = io.BytesIO()
    image.save(out, "PNG", optimize=True)
    return out.getvalue()


@pytest.fixture()
def one_second_deadline(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("FILEAPI_DEADLINE_SECONDS", "1")
    get_settings.cache_clear()
    yield
    monkeypatch.delenv("FILEAPI_DEADLINE_SECONDS")
    get_settings.cache_clear()


def test_a_conversion_past_the_deadline_is_conversion_failed_and_not_counted(
    api: TestClient, key: str, striped_image: bytes, one_second_deadline: None
) -> None:
    used = api.get("/v1/usage", headers=auth(key)).json()["used_this_month"]
    started = time.monotonic()
    cut = api.post("/v1/barcode/read", content=striped_image, headers=auth(key))
    cut_seconds = time.monotonic() - started
    assert cut.status_code == 500
    assert cut.json()["error"] == "conversion_failed"
    assert "within the 1 s limit" in cut.json()["message"]
    assert api.get("/v1/usage", headers=auth(key)).json()["used_this_month"] == used

    get_settings.cache_clear()
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("FILEAPI_DEADLINE_SECONDS")
        started = time.monotonic()
        full = api.post("/v1/barcode/read", content=striped_image, headers=auth(key))
        full_seconds = time.monotonic() - started
        get_settings.cache_clear()
    assert full.status_code == 200 and full.json() == {"codes": []}
    # The answer came at the deadline, not when the decoding passes would have ended.
    assert cut_seconds < full_seconds / 2, (cut_seconds, full_seconds)
