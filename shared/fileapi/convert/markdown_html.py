"""Markdown to HTML: CommonMark with the GitHub extensions (markdown-it-py).

Chosen over Python-Markdown by measurement on the CommonMark spec's 655 examples (see the
tests and the README). Extensions: tables, strikethrough, task lists, autolinks of bare URLs
(linkify). Raw HTML in the input is escaped unless `allow_html` (then it passes through
unchanged: only for trusted input). Links and images with javascript:, vbscript:, file: or
non-image data: URLs are never rendered as links. Nesting is capped at 20 levels.

Inputs are at most 2,000,000 bytes: ordinary Markdown renders at ~2 MB/s here (the CommonMark
spec repeated to 3.3 MB: 1.5 s), but nested emphasis and link openers (`*[*[...`) at ~0.2 MB/s,
so the whole 4.5 MB body would take ~25 s, past the conversion deadline; 2 MB of it take ~11 s.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from fileapi.convert.encoding import decode_utf8
from fileapi.errors import TooLarge

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

MAX_MARKDOWN_BYTES = 2_000_000


@lru_cache(maxsize=2)
def _renderer(allow_html: bool) -> MarkdownIt:
    from markdown_it import MarkdownIt
    from mdit_py_plugins.tasklists import tasklists_plugin

    return MarkdownIt("gfm-like", {"html": allow_html}).use(tasklists_plugin)


def markdown_to_html(data: bytes, *, allow_html: bool = False) -> bytes:
    """Render UTF-8 Markdown as an HTML fragment (UTF-8).

    :param allow_html: pass raw HTML through instead of escaping it (unsafe for untrusted input).
    :raises InvalidInput: the body is not UTF-8. :raises TooLarge: over MAX_MARKDOWN_BYTES.
    """
    if len(data) > MAX_MARKDOWN_BYTES:
        raise TooLarge(f"Markdown input is limited to {MAX_MARKDOWN_BYTES:,} bytes; this is {len(data):,}")
    html: str = _renderer(allow_html).render(decode_utf8(data))
    return html.encode("utf-8")
