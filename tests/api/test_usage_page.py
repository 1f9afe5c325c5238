"""The usage page (GET /usage) as the local server serves it from template.yaml: the page and its own files, each
versioned by their hash, under the same security headers as the interactive reference; the key it asks for is a
password field of a form that cannot be sent anywhere by the browser itself."""

from __future__ import annotations

import hashlib
import re

from fastapi.testclient import TestClient

from fileapi.web import usage_page
from fileapi.web.docs_page import CONTENT_SECURITY_POLICY

ASSET_URL = re.compile(r'(?:src|href)="(/usage/[^"?]+)\?v=([0-9a-f]{16})"')


def test_the_page_loads_only_its_own_files_under_the_policy_of_the_docs_page(api: TestClient) -> None:
    page = api.get("/usage")
    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert (page.headers["content-security-policy"], page.headers["cache-control"]) == (
        CONTENT_SECURITY_POLICY,
        "no-cache",
    )
    assert (page.headers["x-frame-options"], page.headers["referrer-policy"]) == ("DENY", "no-referrer")
    digest = hashlib.sha256(b"".join(api.get(path).content for path in usage_page.ASSETS)).hexdigest()[:16]
    assert ASSET_URL.findall(page.text) == [("/usage/page.css", digest), ("/usage/page.js", digest)]
    assert re.findall(r'(?:src|href)="([^"]+)"', page.text) == [
        "data:,",
        f"/usage/page.css?v={digest}",
        "/docs",
        "/docs/errors",
        f"/usage/page.js?v={digest}",
    ]


def test_each_file_is_served_as_it_is_and_cached_for_a_year(api: TestClient) -> None:
    for path, asset in usage_page.ASSETS.items():
        answer = api.get(path)
        assert (answer.status_code, answer.headers["content-type"]) == (200, asset.media_type)
        assert answer.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert answer.content == (usage_page.OWN_FILES / asset.name).read_bytes()


def test_the_key_is_a_password_field_and_the_page_sends_it_only_as_a_header(api: TestClient) -> None:
    page = api.get("/usage").text
    assert '<input id="key" name="key" type="password"' in page
    assert '<form id="key-form" method="post" autocomplete="off">' in page  # never a GET: no key in an address
    script = api.get("/usage/page.js").text
    assert 'fetch("/v1/usage/chart", {' in script and "Authorization: `Bearer ${key}`" in script
    assert "localStorage" not in script and "sessionStorage" not in script and "location" not in script
