"""The error page (GET /docs/errors): shared/fileapi/errors.md as HTML, a section per error code.

Every ApiError body links to its code's section (`docs_url`, see fileapi.web.errors). The page is
rendered on first request (comrak, imported then) and kept for the life of the process; the request limit it
states is this server's (`FILEAPI_MAX_BODY_BYTES`).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from fileapi.setting_variables import DEFAULT_MAX_BODY_BYTES
from fileapi.settings import load_settings

ERRORS_MARKDOWN = Path(__file__).resolve().parent.parent / "errors.md"
_HEAD = (
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
    '<meta name="viewport" content="width=device-width, initial-scale=1">'
    "<title>Errors · File and Data Utility API</title>"
    "<style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}"
    "code{background:#f3f3f3;padding:0 .2em}h2{margin-top:2rem}h2 a.anchor{display:none}</style>"
    "</head><body>\n"
    '<p><a href="/docs">Try the API from the interactive reference</a> (authorize with your key, send a file, '
    'see the answer) · <a href="/openapi.json">the OpenAPI document</a></p>\n'
)


@lru_cache(maxsize=1)
def error_page_html() -> bytes:
    """The page of this server: errors.md with the request limit of its settings."""
    return render_error_page(ERRORS_MARKDOWN.read_text(encoding="utf-8"), max_body_bytes=load_settings().max_body_bytes)


def render_error_page(markdown: str, *, max_body_bytes: int) -> bytes:
    """The page: each `## <code>` heading of `markdown` becomes an element with id `<code>`, and the default
    request limit it states (`DEFAULT_MAX_BODY_BYTES`, as "4,500,000 bytes") reads `max_body_bytes` (bytes, >= 1)."""
    import comrak

    extensions = comrak.ExtensionOptions()
    extensions.header_id_prefix = ""
    extensions.table = True
    markdown = markdown.replace(f"{DEFAULT_MAX_BODY_BYTES:,} bytes", f"{max_body_bytes:,} bytes")
    body = comrak.render_markdown(markdown, extension_options=extensions)
    return (_HEAD + body + "</body></html>\n").encode()
