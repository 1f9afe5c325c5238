"""Markdown to HTML: GitHub Flavored Markdown (comrak, a port of GitHub's cmark-gfm).

Extensions: tables, strikethrough (``<del>``), autolinks (www., http(s) and e-mail addresses),
task lists and the tag filter (``<script>``, ``<style>``, ``<iframe>``... are escaped even where
raw HTML is allowed). Raw HTML in the input is escaped unless `allow_html` (then it passes through:
only for trusted input). Links and images with javascript:, vbscript:, file: or non-image data:
URLs are never rendered as links or images (their text stays).

Chosen by measurement on the 671 examples of the GFM spec (cmark-gfm's spec.txt), each rendered as
the spec's runner does (the example's own extension; `make bench` prints it): comrak 669/671,
cmark-gfm 0.29.0.gfm.13 (the cmarkgfm binding) 660/671, markdown-it-py and its plugins 658/671.
comrak's two misses are HTML comments (examples 645, 646) whose syntax CommonMark 0.31 redefined
after the spec text was written; cmark-gfm's current release renders them the same way. With every
extension on at once, as this endpoint runs, comrak matches the cmark-gfm command line on 668/671
(tests/api/test_markdown_gfm.py names the 3). comrak renders the CommonMark spec.txt in ~4 ms here,
markdown-it-py in ~70 ms.

Inputs are at most 2,000,000 bytes.
"""

from __future__ import annotations

import re
from typing import Any

from fileapi.convert.encoding import decode_utf8
from fileapi.errors import TooLarge

MAX_MARKDOWN_BYTES = 2_000_000
_BLOCKED = "about:blank#blocked-url"
_SAFE_DATA = re.compile(r"data:image/(?:png|gif|jpeg|webp);", re.IGNORECASE)
_UNSAFE_SCHEME = re.compile(r"(?:javascript|vbscript|file|data):", re.IGNORECASE)
_CONTROL_OR_SPACE = re.compile(r"[\x00-\x20\x7f]+")
_BLOCKED_LINK = re.compile(r'<a href="' + re.escape(_BLOCKED) + r'"(?: title="[^"]*")?>(.*?)</a>', re.DOTALL)
_BLOCKED_IMAGE = re.compile(r'<img src="' + re.escape(_BLOCKED) + r'" alt="([^"]*)"(?: title="[^"]*")? />')


def _checked_url(url: str) -> str:
    """`url`, or a marker when its scheme may run code or read files (removed after rendering)."""
    plain = _CONTROL_OR_SPACE.sub("", url)
    if _UNSAFE_SCHEME.match(plain) and not _SAFE_DATA.match(plain):
        return _BLOCKED
    return url


def _options(allow_html: bool) -> tuple[Any, Any]:
    import comrak

    extensions = comrak.ExtensionOptions()
    for name in ("table", "strikethrough", "autolink", "tasklist", "tagfilter"):
        setattr(extensions, name, True)
    extensions.link_url_rewriter = _checked_url
    extensions.image_url_rewriter = _checked_url
    render = comrak.RenderOptions()
    render.unsafe_ = True  # URLs are checked by _checked_url (comrak's own check leaves empty links)
    render.escape = not allow_html  # raw HTML shown as text, not dropped
    return extensions, render


def markdown_to_html(data: bytes, *, allow_html: bool = False) -> bytes:
    """Render UTF-8 Markdown as an HTML fragment (UTF-8).

    :param allow_html: pass raw HTML through instead of escaping it (unsafe for untrusted input).
    :raises InvalidInput: the body is not UTF-8.
    :raises TooLarge: over MAX_MARKDOWN_BYTES, or tables or markup that would cost more than
        `markdown_cost` allows (checked before rendering).
    """
    import comrak

    if len(data) > MAX_MARKDOWN_BYTES:
        raise TooLarge(f"Markdown input is limited to {MAX_MARKDOWN_BYTES:,} bytes; this is {len(data):,}")
    from fileapi.convert.markdown_cost import check_markdown_cost

    text = decode_utf8(data)
    check_markdown_cost(text)
    extensions, render = _options(allow_html)
    html: str = comrak.render_markdown(text, extension_options=extensions, render_options=render)
    if _BLOCKED in html:
        html = _BLOCKED_IMAGE.sub(r"\1", _BLOCKED_LINK.sub(r"\1", html))
    return html.encode("utf-8")
