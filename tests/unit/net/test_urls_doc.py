"""docs/urls.md and the error page give the network edge's figures as the code has them."""

from __future__ import annotations

from fileapi.local.template import PROJECT_ROOT
from fileapi.net.fetch import MAX_REDIRECTS
from fileapi.net.put import BACKOFF_SECONDS, MAX_HEADER_CHARS, MAX_HEADERS, PUT_ATTEMPTS, RESERVED_HEADERS
from fileapi.net.urls import MAX_URL_CHARS

API_DOC = " ".join((PROJECT_ROOT / "docs" / "api.md").read_text(encoding="utf-8").split())
URLS_DOC = " ".join((PROJECT_ROOT / "docs" / "urls.md").read_text(encoding="utf-8").split())
ERROR_PAGE = " ".join((PROJECT_ROOT / "shared" / "fileapi" / "errors.md").read_text(encoding="utf-8").split())


def waits() -> str:
    """'1, 2 and 4': the waits between PUT attempts, in seconds."""
    seconds = [f"{BACKOFF_SECONDS * 2**n:g}" for n in range(PUT_ATTEMPTS - 1)]
    return f"{', '.join(seconds[:-1])} and {seconds[-1]}"


def test_the_bounds_are_the_code_s() -> None:
    for figure in (
        f"more than {MAX_URL_CHARS:,} characters",
        f"{MAX_REDIRECTS} redirects at most",
        f"more than {MAX_REDIRECTS} redirects",
        f"at most {MAX_HEADERS}, each name an HTTP token and name and value together at most {MAX_HEADER_CHARS:,}",
        f"{PUT_ATTEMPTS} attempts, with waits of {waits()} seconds",
    ):
        assert figure in URLS_DOC, figure


def test_the_api_doc_gives_the_url_bound() -> None:
    assert f"at most {MAX_URL_CHARS:,} characters, without a user name" in API_DOC


def test_every_reserved_header_is_named() -> None:
    named = URLS_DOC.lower()
    for header in RESERVED_HEADERS:
        shown = "proxy-*" if header.startswith("proxy-") else header
        assert shown in named, header


def test_the_error_page_gives_the_same_figures() -> None:
    assert f"more than {MAX_REDIRECTS} redirects" in ERROR_PAGE
    assert f"on every attempt ({PUT_ATTEMPTS}, with waits of {waits()} seconds)" in ERROR_PAGE
