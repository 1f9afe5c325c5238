"""Every error links to the page section that explains its code, and the page has a section for each code."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from fileapi.errors import ALL_ERRORS
from tests.helpers import auth


def section_ids(api: TestClient) -> set[str]:
    page = api.get("/docs/errors")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    return set(re.findall(r'<h2 id="([a-z_]+)"', page.text))


def test_the_error_page_has_a_section_for_every_code(api: TestClient) -> None:
    assert section_ids(api) == {error.code for error in ALL_ERRORS}


def test_errors_a_newcomer_meets_link_to_their_section(api: TestClient, key: str) -> None:
    ids = section_ids(api)
    answers = [
        api.post("/v1/data/base64-encode", content=b"x"),  # no key
        api.post("/v1/data/base64-encode", content=b"x", headers={"Authorization": "Bearer sk_live_typo"}),
        api.post("/v1/image/resize", params={"width": "0"}, content=b"x", headers=auth(key)),
        api.post("/v1/image/convert", params={"to": "gif"}, content=b"x", headers=auth(key)),
        api.post("/v1/qr/generate", content=b"text=hello", headers=auth(key)),
        api.get("/v1/nothing-here"),
        api.get("/v1/data/base64-encode"),
    ]
    for answer in answers:
        body = answer.json()
        assert body["docs_url"] == f"/docs/errors#{body['error']}", body
        assert body["error"] in ids
    assert [answer.status_code for answer in answers] == [401, 401, 400, 400, 400, 404, 405]
