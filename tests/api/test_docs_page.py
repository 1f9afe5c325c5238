"""The interactive reference (GET /docs) as the local server serves it from template.yaml: the page, its own
files (no other origin anywhere), its security and caching headers, and the paths that lead to it."""

from __future__ import annotations

import hashlib
import re

import pytest
from fastapi.testclient import TestClient

from fileapi.web.docs_page import ASSETS, CONTENT_SECURITY_POLICY, OWN_FILES, swagger_ui_folder

ASSET_URL = re.compile(r'(?:src|href)="(/docs/[^"?]+)\?v=([0-9a-f]{16})"')


def test_the_page_loads_only_its_own_files_each_versioned_by_their_hash(api: TestClient) -> None:
    page = api.get("/docs")
    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    loaded = ASSET_URL.findall(page.text)
    assert [path for path, _ in loaded] == [
        "/docs/swagger-ui.css",
        "/docs/page.css",
        "/docs/swagger-ui-bundle.js",
        "/docs/page.js",
    ]
    digest = hashlib.sha256(b"".join(api.get(path).content for path in ASSETS)).hexdigest()[:16]
    assert {version for _, version in loaded} == {digest}
    assert (
        re.findall(r'(?:src|href)="([^"]+)"', page.text)
        == [
            "data:,",  # no favicon request
            *(f"{path}?v={digest}" for path, _ in loaded[:2]),
            "/docs/errors",
            "/openapi.json",
            *(f"{path}?v={digest}" for path, _ in loaded[2:]),
        ]
    )


def test_the_page_may_reach_its_own_origin_only(api: TestClient) -> None:
    headers = api.get("/docs").headers
    assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    directives = dict(directive.split(" ", 1) for directive in CONTENT_SECURITY_POLICY.split("; "))
    assert directives == {
        "default-src": "'none'",
        "script-src": "'self'",
        "style-src": "'self'",
        "img-src": "'self' data: blob:",
        "connect-src": "'self'",
        "font-src": "'self'",
        "base-uri": "'none'",
        "form-action": "'none'",
        "frame-ancestors": "'none'",
    }
    assert (headers["x-content-type-options"], headers["referrer-policy"], headers["x-frame-options"]) == (
        "nosniff",
        "no-referrer",
        "DENY",
    )
    assert headers["cache-control"] == "no-cache"


@pytest.mark.parametrize(
    ("path", "media_type", "folder"),
    [
        ("/docs/swagger-ui-bundle.js", "text/javascript; charset=utf-8", "swagger-ui"),
        ("/docs/swagger-ui.css", "text/css; charset=utf-8", "swagger-ui"),
        ("/docs/page.js", "text/javascript; charset=utf-8", "own"),
        ("/docs/page.css", "text/css; charset=utf-8", "own"),
    ],
)
def test_each_file_is_served_as_installed_and_cached_for_a_year(
    api: TestClient, path: str, media_type: str, folder: str
) -> None:
    answer = api.get(path)
    assert answer.status_code == 200
    assert answer.headers["content-type"] == media_type
    assert answer.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert answer.headers["x-content-type-options"] == "nosniff"
    installed = (swagger_ui_folder() if folder == "swagger-ui" else OWN_FILES) / path.rsplit("/", 1)[1]
    assert answer.content == installed.read_bytes()


def test_swagger_ui_is_the_pinned_version_5() -> None:
    bundle = (swagger_ui_folder() / "swagger-ui-bundle.js").read_text(encoding="utf-8")
    assert '"5.32.6"' in bundle  # fastapi-offline 1.7.7's Swagger UI: OpenAPI 3.1 documents need 5.x


def test_no_file_of_the_page_names_a_cdn(api: TestClient) -> None:
    for path in ["/docs", *ASSETS]:
        text = api.get(path).text
        for cdn in ("cdn.jsdelivr.net", "unpkg.com", "cdnjs.cloudflare.com", "fonts.googleapis.com"):
            assert cdn not in text, (path, cdn)


@pytest.mark.parametrize(("path", "status"), [("/docs/", 308), ("/redoc", 308), ("/", 307)])
def test_the_other_paths_a_newcomer_tries_lead_to_the_page(api: TestClient, path: str, status: int) -> None:
    answer = api.get(path, follow_redirects=False)
    assert (answer.status_code, answer.headers["location"]) == (status, "/docs")
    assert api.get(path).url.path == "/docs"


def test_the_page_and_the_error_page_link_to_each_other(api: TestClient) -> None:
    assert '<a href="/docs/errors">' in api.get("/docs").text
    assert '<a href="/docs">Try the API from the interactive reference</a>' in api.get("/docs/errors").text


def test_fastapis_own_docs_routes_are_not_served(api: TestClient) -> None:
    for path in ("/docs/oauth2-redirect", "/static-offline-docs/swagger-ui-bundle.js", "/docs/redoc.standalone.js"):
        assert api.get(path).json()["error"] == "not_found"
