"""The usage page (GET /usage) in a real browser: Debian's chromium driven by Playwright, against a real `fileapi
serve`, under the same Content-Security-Policy as /docs. A customer opens the page, gives their key, and sees this
month's chart: the key went only to the API's own origin in the Authorization header, never into a URL, and
nothing the page did was refused by its policy. A wrong key shows the API's message and no chart.

FILEAPI_USAGE_SCREENSHOT=/path/to/file.png saves a screenshot of the page with its chart.
"""

from __future__ import annotations

import os
import time
import urllib.request
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest

from fileapi.metering.admin import create_key
from fileapi.metering.storage import AccountStore
from tests.server.conftest import StartServers

if TYPE_CHECKING:
    from playwright.sync_api import Page, Request

pytestmark = pytest.mark.server
WAIT_MS = 30_000  # the longest one step of the page may take on a busy machine
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")  # fmt: skip


def test_a_customer_sees_the_month_of_their_key_and_the_key_stays_out_of_urls(
    page: Page, start_servers: StartServers, server_store: AccountStore
) -> None:
    # GIVEN a key with three requests counted this month
    (base_url,) = start_servers(1)
    key = create_key(server_store, email="usage-page@example.com", plan="pro")
    for _ in range(3):
        request = urllib.request.Request(
            f"{base_url}/v1/data/base64-encode", data=b"hi", headers={"Authorization": f"Bearer {key}"}
        )
        with urllib.request.urlopen(request, timeout=30) as answer:
            assert answer.status == 200
    requests: list[Request] = []
    problems: list[str] = []
    page.on("request", lambda request: requests.append(request))
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    # WHEN the page is opened and given the key
    page.goto(f"{base_url}/usage")
    page.locator("#key").fill(key)
    page.locator("#key-form button[type=submit]").click()
    chart = page.locator("#chart > svg")
    chart.wait_for(timeout=WAIT_MS)
    # THEN the chart of this month is in the page, as SVG elements a screen reader can read
    now = time.gmtime()
    month = f"{MONTHS[now.tm_mon - 1]} {now.tm_year}"
    assert chart.get_attribute("role") == "img"
    assert chart.locator("title").first.text_content() == f"Requests in {month}"
    desc = chart.locator("desc").text_content() or ""
    assert desc.startswith(f"{month}: 3 of the monthly quota of 10,000 requests used by ")
    box = chart.bounding_box()
    assert box is not None and box["width"] >= 600 and box["height"] >= 300
    assert page.locator("#status").text_content() == ""
    destination = os.environ.get("FILEAPI_USAGE_SCREENSHOT")
    if destination:
        page.screenshot(path=destination, full_page=True)
    # AND the key went only to the chart's request, in its Authorization header, and into no URL
    origin = urlsplit(base_url)[:2]
    fetched = [request for request in requests if not request.url.startswith(("data:", "blob:"))]
    assert {urlsplit(request.url)[:2] for request in fetched} == {origin}
    assert {urlsplit(request.url).path for request in fetched} == {
        "/usage",
        "/usage/page.css",
        "/usage/page.js",
        "/v1/usage/chart",
    }
    assert [request.headers.get("authorization") for request in fetched if "/v1/" in request.url] == [f"Bearer {key}"]
    assert not any(key in request.url for request in requests) and key not in page.url
    assert problems == []  # no script error, nothing refused by the Content-Security-Policy


def test_a_wrong_key_shows_the_apis_message_and_no_chart(page: Page, start_servers: StartServers) -> None:
    (base_url,) = start_servers(1)
    page.goto(f"{base_url}/usage")
    page.locator("#key").fill("sk_live_" + "x" * 49)
    page.locator("#key-form button[type=submit]").click()
    status = page.locator("#status")
    status.filter(has_text="checksum").wait_for(timeout=WAIT_MS)
    assert page.locator("#chart").is_hidden()
    assert page.locator("#chart > *").count() == 0
