"""One request limit, stated once: the README, docs/api.md, the error page and the 413 all give the settings'
figure, and the 413 and the error page say how to send a larger file."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from fileapi.setting_variables import DEFAULT_MAX_BODY_BYTES
from fileapi.settings import load_settings
from fileapi.web.error_page import ERRORS_MARKDOWN, render_error_page
from tests.helpers import auth

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_FIGURE = f"{DEFAULT_MAX_BODY_BYTES:,} bytes"


def too_large_section(page: str) -> str:
    found = re.search(r'<h2 id="too_large".*?(?=<h2 )', page, re.S)
    assert found is not None
    return html.unescape(re.sub(r"<[^>]+>", "", found.group(0)))


@pytest.mark.parametrize("document", ["README.md", "docs/api.md", "shared/fileapi/errors.md"])
def test_each_document_states_the_default_limit_and_no_other(document: str) -> None:
    text = (ROOT / document).read_text(encoding="utf-8")
    assert DEFAULT_FIGURE in text
    # no other way of saying it: a request's "6 MB", "about 4.5 MB"
    assert not re.search(r"request'?s? (?:of |carries at most )?(?:about )?[\d.]+ ?MB", text), document


def test_the_413_gives_the_limit_and_the_way_to_send_a_larger_file(api: TestClient, key: str) -> None:
    limit = load_settings().max_body_bytes
    answer = api.post("/v1/data/base64-encode", content=b"x" * (limit + 1), headers=auth(key))
    body = answer.json()
    assert (answer.status_code, body["error"]) == (413, "too_large")
    assert f"over the limit of {limit:,} bytes" in body["message"]
    assert "POST /v1/uploads" in body["message"] and "?upload=" in body["message"]


def test_the_error_page_gives_the_limit_and_the_way_to_send_a_larger_file(api: TestClient) -> None:
    section = too_large_section(api.get("/docs/errors").text)
    assert f"{load_settings().max_body_bytes:,} bytes" in section
    assert all(step in section for step in ("POST /v1/uploads", "?upload=", "Prefer: respond-async"))


def test_the_error_page_states_the_limit_a_server_is_configured_with() -> None:
    page = render_error_page(ERRORS_MARKDOWN.read_text(encoding="utf-8"), max_body_bytes=1_000_000).decode()
    section = too_large_section(page)
    assert "1,000,000 bytes" in section and DEFAULT_FIGURE not in section
