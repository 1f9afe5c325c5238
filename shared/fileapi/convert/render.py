"""SVG to PNG with resvg (the resvg-py binding), safely.

- SVGZ (gzip) is accepted and inflated up to 16 MB.
- The document is first parsed with expat: malformed XML, entity-expansion bombs (expat's
  amplification limit), more than 256 levels of nesting or 200,000 elements are refused (400)
  before resvg sees them (resvg's recursion would overflow its stack on deep nesting).
- Nothing external is fetched: href/xlink:href values other than "#fragment" and "data:" URIs,
  CSS url() references other than those, and CSS @import rules are neutralised before rendering.
- Text is drawn with the bundled DejaVu Sans (every generic family maps to it); no system font
  is scanned.
- Size: the intrinsic size (width/height, else the viewBox; an SVG with neither is given 300 x 150,
  CSS's default for a replaced element) times `scale`; with
  `width` or `height` alone the other keeps the aspect ratio; with both, the drawing is scaled to
  fit inside and centred on a canvas of exactly width x height. Outputs over 16383 px a side or
  50 megapixels are 413.
"""

from __future__ import annotations

import io
import re
import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from fileapi.convert.collector import collector_paused
from fileapi.convert.color import parse_color
from fileapi.convert.image_io import check_output_size
from fileapi.convert.render_options import SCALE_OR_SIZE
from fileapi.errors import InvalidInput, TooLarge

# A size is given one way (fileapi.models.render.SvgToPngOptions refuses both, before any work).

if TYPE_CHECKING:
    from fileapi.convert.svg_tree import Tree

FONT_PATH = Path(__file__).resolve().parent.parent / "fonts" / "DejaVuSans.ttf"
FONT_FAMILY = "DejaVu Sans"
_HREF = re.compile(r"""(href\s*=\s*)(?:"(?!\s*#|\s*data:)[^"]*"|'(?!\s*#|\s*data:)[^']*')""", re.IGNORECASE)
_CSS_URL = re.compile(
    r"""url\(\s*(?:"(?!\s*#|\s*data:)[^"]*"|'(?!\s*#|\s*data:)[^']*'|(?!["'#]|data:)[^)]*)\s*\)""", re.IGNORECASE
)
_CSS_IMPORT = re.compile(r"@import[^;<]*;?", re.IGNORECASE)
_SVG_START = re.compile(r"<(?:[A-Za-z_][\w.-]*:)?svg(?=[\s/>])")
NO_SIZE_DEFAULT = (300, 150)  # CSS's default size of a replaced element, for SVGs that give none
# A root width or height in an absolute unit (Inkscape writes width="210mm"): resvg_py 0.5 refuses them ("SVG has
# an invalid size"), so the root is given its size in pixels (96 a CSS inch), as intrinsic_size reads it.
_ABSOLUTE_UNIT = re.compile(r"^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*(?:mm|cm|in|pt|pc|q)\s*$", re.IGNORECASE)
_ROOT_TAG_END = re.compile(r"""(?:"[^"]*"|'[^']*'|[^'">])*>""")
_SIZE_ATTRIBUTE = re.compile(r"""(\s)(width|height)(\s*=\s*)(?:"[^"]*"|'[^']*')""")
_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")


@dataclass(frozen=True)
class _Document:
    text: str
    size: tuple[float, float]
    tree: Tree


def svg_to_png(
    data: bytes,
    *,
    scale: float | None = None,
    width: int | None = None,
    height: int | None = None,
    background: str | None = None,
) -> bytes:
    """Render an SVG (or SVGZ) document as PNG.

    :param scale: 0.1..10, multiplies the intrinsic size (not with width/height).
    :param width: output width in pixels (>= 1); `height` likewise.
    :param background: any CSS colour or 'transparent' (default transparent).
    :raises InvalidInput: not a well-formed, renderable SVG; bad options.
    :raises TooLarge: the output would be over the bounds, or the SVGZ inflates past 16 MB.
    """
    if scale is not None and not 0.1 <= scale <= 10:
        raise InvalidInput(f"scale must be 0.1..10, not {scale}")
    if scale is not None and (width is not None or height is not None):
        raise InvalidInput(SCALE_OR_SIZE)
    fill = _background(background)
    with collector_paused():
        document = _parse(_inflate(data))
    intrinsic_w, intrinsic_h = document.size
    if width is not None and height is not None:
        zoom = min(width / intrinsic_w, height / intrinsic_h)
        canvas: tuple[int, int] | None = (width, height)
    else:
        zoom = scale or (width / intrinsic_w if width else (height / intrinsic_h if height else 1.0))
        canvas = None
    target = (max(1, round(intrinsic_w * zoom)), max(1, round(intrinsic_h * zoom)))
    check_output_size(*(canvas or target))
    from fileapi.convert.svg_prediction import check_render_cost

    composing = 4 * (3 * canvas[0] * canvas[1] + target[0] * target[1]) if canvas else 0  # _on_canvas's images
    with collector_paused():
        check_render_cost(document.tree, canvas=target, zoom=zoom, size=document.size, extra_bytes=composing)
    png = _render(document.text, zoom=zoom, background=None if canvas else fill)
    _check_rendered(png)
    return _on_canvas(png, canvas, fill) if canvas else png


def _check_rendered(png: bytes) -> None:
    """The rendered size, read from the PNG header, within the output bounds."""
    if png[12:16] == b"IHDR":
        check_output_size(int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big"))


def _background(background: str | None) -> str | None:
    if background is None or background.strip().lower() == "transparent":
        return None
    color = parse_color(background)
    alpha = 1.0 if color.alpha is None else color.alpha
    channels = (color.r, color.g, color.b, alpha)
    return "#" + "".join(f"{round(channel * 255):02x}" for channel in channels)


def _inflate(data: bytes) -> bytes:
    from fileapi.convert.svg_images import MAX_INFLATED_BYTES

    if not data.startswith(b"\x1f\x8b"):
        return data
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        inflated = inflater.decompress(data, MAX_INFLATED_BYTES + 1)
    except zlib.error as exc:
        raise InvalidInput(f"the SVGZ is not valid gzip: {exc}") from None
    if len(inflated) > MAX_INFLATED_BYTES or inflater.unconsumed_tail:
        raise TooLarge(f"the SVGZ inflates to more than {MAX_INFLATED_BYTES:,} bytes")
    return inflated


def _parse(data: bytes) -> _Document:
    from fileapi.convert.svg_shapes import intrinsic_size
    from fileapi.convert.svg_tree import parse_tree

    tree = parse_tree(data)
    if tree.root.local != "svg":
        raise InvalidInput("the document's root element is not <svg>")
    text = _neutralised(_text(data))
    try:
        size = intrinsic_size(tree.root.raw)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from None
    if size is None:
        # resvg would size it to its content's bounding box, unknown (and unbounded) until rendered
        width, height = NO_SIZE_DEFAULT
        text = _SVG_START.sub(lambda match: f'{match.group(0)} width="{width}" height="{height}"', text, count=1)
        return _Document(text=text, size=(float(width), float(height)), tree=tree)
    if any(_ABSOLUTE_UNIT.match(tree.root.raw.get(name) or "") for name in ("width", "height")):
        text = _in_pixels(text, size)
    return _Document(text=text, size=size, tree=tree)


def _in_pixels(text: str, size: tuple[float, float]) -> str:
    """The document with its root's width and height given in pixels (`size`)."""
    start = _SVG_START.search(text)
    end = _ROOT_TAG_END.match(text, start.end()) if start else None
    if start is None or end is None:
        return text
    pixels = {"width": f"{size[0]:.6g}", "height": f"{size[1]:.6g}"}
    tag = _SIZE_ATTRIBUTE.sub(
        lambda m: f'{m.group(1)}{m.group(2)}{m.group(3)}"{pixels[m.group(2)]}"', text[start.end() : end.end()]
    )
    return text[: start.end()] + tag + text[end.end() :]


def _text(data: bytes) -> str:
    declared = _ENCODING.match(data)
    encoding = declared.group(1).decode("ascii") if declared else "utf-8"
    try:
        return data.decode("utf-8-sig" if encoding.lower() in ("utf-8", "utf8") else encoding)
    except (LookupError, UnicodeDecodeError):
        raise InvalidInput(f"the SVG is not valid {encoding} text") from None


def _neutralised(text: str) -> str:
    """The document with every external reference made harmless (nothing is fetched or read)."""
    text = _HREF.sub(lambda match: match.group(1) + '"#"', text)
    text = _CSS_IMPORT.sub("", text)
    return _CSS_URL.sub("url(#)", text)


@lru_cache(maxsize=1)
def _font_files() -> list[str]:
    return [str(FONT_PATH)]


def _render(text: str, *, zoom: float, background: str | None) -> bytes:
    import resvg_py

    try:
        return bytes(
            resvg_py.svg_to_bytes(
                svg_string=text,
                zoom=zoom,
                background=background,
                skip_system_fonts=True,
                font_files=_font_files(),
                font_family=FONT_FAMILY,
                serif_family=FONT_FAMILY,
                sans_serif_family=FONT_FAMILY,
                monospace_family=FONT_FAMILY,
                cursive_family=FONT_FAMILY,
                fantasy_family=FONT_FAMILY,
            )
        )
    except ValueError as exc:
        raise InvalidInput(f"the SVG cannot be rendered: {str(exc)[:200]}") from None


def _on_canvas(png: bytes, canvas: tuple[int, int], fill: str | None) -> bytes:
    from PIL import Image

    drawing = Image.open(io.BytesIO(png)).convert("RGBA")
    colour = fill or "#00000000"
    board = Image.new("RGBA", canvas, colour)
    offset = ((canvas[0] - drawing.width) // 2, (canvas[1] - drawing.height) // 2)
    layer = Image.new("RGBA", canvas, (0, 0, 0, 0))
    layer.paste(drawing, offset)  # rounding may make the drawing a pixel larger: paste clips
    board = Image.alpha_composite(board, layer)
    out = io.BytesIO()
    board.save(out, "PNG", optimize=False)
    return out.getvalue()
