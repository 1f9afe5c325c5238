"""The usage page (GET /usage): a customer gives their key and sees this month's chart (GET /v1/usage/chart), which
the page fetches with the key in the Authorization header, never in a URL. Served by the Health function like the
interactive reference (fileapi.web.static_page: its own files, versioned, its own origin only); its files are in
`fileapi/usage_page/`."""

from __future__ import annotations

from pathlib import Path

from fileapi.web.static_page import CSS, JAVASCRIPT, Asset, Endpoint, StaticPage

PAGE_PATH = "/usage"
OWN_FILES = Path(__file__).resolve().parent.parent / "usage_page"


def _own_files() -> Path:
    return OWN_FILES


ASSETS = {
    "/usage/page.js": Asset("page.js", JAVASCRIPT, _own_files),
    "/usage/page.css": Asset("page.css", CSS, _own_files),
}
PAGE = StaticPage(PAGE_PATH, OWN_FILES / "index.html", ASSETS)


def page_routes() -> dict[str, Endpoint]:
    """Every GET route of the page by path: the page and its files."""
    return PAGE.routes()
