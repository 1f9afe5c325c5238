"""The interactive reference (GET /docs) in a real browser: Debian's chromium driven by Playwright (the
system browser, never a downloaded one), against a real `fileapi serve`. The page is opened, authorized
with a key, and used to send data/base64-encode a raw file and image/resize a file in a form; the answers
are checked, and every request the page made went to the API's own origin. Then what the page says: a parameter
group's need (resize's width or height) in each member, optional integers as integers, an error's docs_url as a
link, and the Accept header (and the curl command) of the format asked for.

FILEAPI_DOCS_SCREENSHOT=/path/to/file.png saves a screenshot of the page after the tries.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest
from PIL import Image, ImageDraw

from fileapi.metering.admin import create_key
from fileapi.metering.storage import AccountStore
from fileapi.web.spec import OPENAPI_PATH
from tests.server.conftest import StartServers

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

pytestmark = pytest.mark.server
WAIT_MS = 30_000  # the longest the page may take to answer one step (a cold worker's first resize included)


@pytest.fixture()
def api(start_servers: StartServers, server_store: AccountStore) -> tuple[str, str]:
    (base_url,) = start_servers(1)
    return base_url, create_key(server_store, email="docs-page@example.com", plan="business")


def _open_authorized(page: Page, base_url: str, key: str) -> None:
    """Open /docs and authorize it with `key`, as a person does (Authorize, paste, Authorize, Close)."""
    page.goto(f"{base_url}/docs")
    page.locator(".opblock").first.wait_for(timeout=WAIT_MS)
    page.locator(".auth-wrapper button.authorize").click()
    page.locator(".auth-container input").fill(key)
    page.locator(".auth-btn-wrapper button.authorize").click()
    page.locator(".auth-btn-wrapper button.btn-done").click()


def _operation(page: Page, tag: str, operation_id: str) -> Locator:
    """The operation's block, opened (Swagger UI's ids: operations-<tag>-<operationId>)."""
    block = page.locator(f"#operations-{tag}-{operation_id}")
    block.locator(".opblock-summary").click()
    return block


def _execute(block: Locator) -> Locator:
    """Send the operation's request; the row of the answer the page shows."""
    block.locator("button.execute").click()
    answer = block.locator(".live-responses-table tbody tr.response")
    answer.wait_for(timeout=WAIT_MS)
    return answer


def test_a_person_authorizes_and_sends_files_from_the_page(page: Page, api: tuple[str, str], tmp_path: Path) -> None:
    base_url, key = api
    origin = urlsplit(base_url)[:2]
    requested: list[str] = []
    problems: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    text = tmp_path / "hello.txt"
    text.write_bytes(b"hello")
    photo = tmp_path / "photo.png"
    picture = Image.linear_gradient("L").resize((400, 300)).convert("RGB")
    ImageDraw.Draw(picture).ellipse((130, 80, 270, 220), fill=(10, 200, 30))
    picture.save(photo, "PNG")

    _open_authorized(page, base_url, key)

    # data/base64-encode: the file as the raw body (application/octet-stream, the first media type)
    encode = _operation(page, "Data", "data_base64_encode")
    assert encode.locator(".opblock-section-request-body select").input_value() == "application/octet-stream"
    encode.locator(".opblock-section-request-body input[type=file]").set_input_files(text)
    encoded = _execute(encode)
    assert encoded.locator(".response-col_status").inner_text() == "200"
    assert encoded.locator(".response-col_description .highlight-code pre").inner_text() == "aGVsbG8="

    # image/resize: the file as a form (multipart/form-data, offered from the x-also-multipart extension)
    resize = _operation(page, "Image", "image_resize")
    resize.locator("tr[data-param-name='width'] input").fill("200")
    resize.locator(".opblock-section-request-body select").select_option("multipart/form-data")
    resize.locator(".opblock-section-request-body input[type=file]").set_input_files(photo)
    resized = _execute(resize)
    assert resized.locator(".response-col_status").inner_text() == "200"
    shown = resized.locator(".response-col_description img")
    shown.wait_for(timeout=WAIT_MS)
    image: dict[str, Any] = shown.evaluate(
        "img => img.decode().then(() => ({src: img.src, width: img.naturalWidth, height: img.naturalHeight}))"
    )
    assert (image["src"][:5], image["width"], image["height"]) == ("blob:", 200, 150)  # 400x300 at width 200
    headers = resized.locator(".response-col_description pre").filter(has_text="x-quota-remaining: ").inner_text()
    assert "content-type: image/png" in [line.strip() for line in headers.splitlines()]

    destination = os.environ.get("FILEAPI_DOCS_SCREENSHOT")
    if destination:  # the operation from its title down to the image it answered
        top, bottom = resize.bounding_box(), shown.bounding_box()
        assert top is not None and bottom is not None
        page.set_viewport_size({"width": 1280, "height": int(bottom["y"] + bottom["height"] - top["y"]) + 40})
        resize.evaluate("block => block.scrollIntoView({block: 'start'})")
        page.screenshot(path=destination)

    assert problems == []  # no script error, no request refused by the Content-Security-Policy
    fetched = [url for url in requested if not url.startswith(("data:", "blob:"))]
    assert {urlsplit(url)[:2] for url in fetched} == {origin}
    assert {urlsplit(url).path for url in fetched} == {
        "/docs",
        "/docs/swagger-ui.css",
        "/docs/page.css",
        "/docs/swagger-ui-bundle.js",
        "/docs/page.js",
        "/openapi.json",
        "/v1/data/base64-encode",
        "/v1/image/resize",
    }


def test_the_page_says_what_options_need_asks_for_the_chosen_format_and_links_errors(
    page: Page, api: tuple[str, str], tmp_path: Path
) -> None:
    base_url, key = api
    sent: list[dict[str, str]] = []
    problems: list[str] = []
    page.on("request", lambda request: sent.append(request.headers) if "/v1/image/resize" in request.url else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    photo = tmp_path / "photo.png"
    Image.linear_gradient("L").resize((40, 30)).convert("RGB").save(photo, "PNG")

    _open_authorized(page, base_url, key)
    resize = _operation(page, "Image", "image_resize")

    # width and height: each says that one of them is needed, and reads as an integer, not "integer | null"
    for name in ("width", "height"):
        row = resize.locator(f"tr[data-param-name='{name}']")
        assert "Give width, height or both (at least one)." in row.inner_text()
        assert row.locator(".parameter__type").inner_text().strip() == "integer"

    # neither given: the 400's docs_url is a link to the error page's section
    resize.locator(".opblock-section-request-body input[type=file]").set_input_files(photo)
    refused = _execute(resize)
    answers = json.loads(OPENAPI_PATH.read_text())["paths"]["/v1/image/resize"]["post"]["responses"]["200"]["content"]
    assert sent[-1].get("accept") == ", ".join(answers)  # no format: any the input's format may give
    assert refused.locator(".response-col_status").inner_text() == "400"
    link = refused.locator(".response-col_description a[href='/docs/errors#invalid_input']")
    assert link.inner_text() == "/docs/errors#invalid_input"

    # format=webp: the request, and the curl command the page shows, accept image/webp
    resize.locator("tr[data-param-name='width'] input").fill("20")
    resize.locator("tr[data-param-name='format'] select").select_option("webp")
    with page.expect_response(lambda response: "/v1/image/resize" in response.url, timeout=WAIT_MS) as answered:
        resize.locator("button.execute").click()
    assert answered.value.status == 200
    resize.locator(".live-responses-table .response-col_status", has_text="200").wait_for(timeout=WAIT_MS)
    assert sent[-1].get("accept") == "image/webp"
    curl = resize.locator(".curl-command").inner_text()
    assert "accept: image/webp" in curl and "format=webp" in curl
    assert problems == []
