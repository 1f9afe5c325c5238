"""GET /v1/usage/chart through the composed local API: an SVG of the key's month, self-service (authenticated, rate
limited, never counted), with the same figures as GET /v1/usage."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

import pytest
from fastapi.testclient import TestClient

from tests.conftest import MakeKey
from tests.helpers import auth

SVG = "{http://www.w3.org/2000/svg}"


def test_the_chart_is_the_keys_month_as_svg_and_is_not_counted(api: TestClient, make_key: MakeKey) -> None:
    key = make_key(plan="pro")
    for _ in range(2):
        assert api.post("/v1/data/base64-encode", content=b"x", headers=auth(key)).status_code == 200
    chart = api.get("/v1/usage/chart", headers=auth(key))
    assert chart.status_code == 200
    assert chart.headers["content-type"] == "image/svg+xml"
    assert (chart.headers["cache-control"], chart.headers["content-security-policy"]) == (
        "private, no-store",
        "default-src 'none'",
    )
    assert chart.headers["X-Quota-Remaining"] == "9998" and chart.headers["RateLimit-Limit"] == "15"
    root = ElementTree.fromstring(chart.content)
    usage = api.get("/v1/usage", headers=auth(key)).json()
    assert usage["used_this_month"] == 2  # the chart was not counted
    month = (root.findtext(f"{SVG}title") or "").removeprefix("Requests in ")
    assert (root.findtext(f"{SVG}desc") or "").startswith(f"{month}: 2 of the monthly quota of 10,000 requests")
    bars = [rect for rect in root.iter(f"{SVG}rect") if rect.find(f"{SVG}title") is not None]
    assert len(bars) == len(usage["daily"])


def test_the_chart_refuses_as_usage_does(api: TestClient, make_key: MakeKey) -> None:
    missing = api.get("/v1/usage/chart")
    assert (missing.status_code, missing.json()["error"]) == (401, "unauthorized")
    inactive = api.get("/v1/usage/chart", headers=auth(make_key(status="canceled")))
    assert (inactive.status_code, inactive.json()["error"]) == (403, "subscription_inactive")


@pytest.mark.parametrize("typed", ["sk_live_typo123", "sk_live_" + "x" * 48 + "!", " sk_live_", "my key"])
def test_a_mistyped_key_is_called_invalid_with_the_shape_of_a_key(api: TestClient, typed: str) -> None:
    # GIVEN what a customer may type into the usage page, which sends it as a bearer token
    answer = api.get("/v1/usage/chart", headers={"Authorization": f"Bearer {typed}"})
    message = answer.json()["message"]
    # THEN 401 saying the key is not valid and how a key looks, without repeating what was typed
    assert (answer.status_code, answer.json()["error"]) == (401, "unauthorized")
    assert message.startswith("invalid API key: a key is 'sk_live_' and 49 letters and digits (57 characters)")
    assert "malformed" not in message and (typed.strip() or "\0") not in message.replace("'sk_live_'", "")


def test_a_key_sent_without_the_word_bearer_is_told_so(api: TestClient) -> None:
    answer = api.get("/v1/usage/chart", headers={"Authorization": "sk_live_" + "x" * 49})
    assert answer.status_code == 401
    assert answer.json()["message"] == (
        "malformed Authorization header: the word Bearer is missing; send 'Bearer sk_live_...'"
    )
