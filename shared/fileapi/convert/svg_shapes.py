"""The drawing of single SVG elements: inherited paint, each shape's outline, text runs, viewports."""

from __future__ import annotations

import math
from typing import NamedTuple

from fileapi.convert.svg_geometry import (
    IDENTITY,
    Affine,
    Box,
    Outline,
    length,
    multiply,
    numbers,
    path_outline,
    view_box,
)
from fileapi.convert.svg_tree import Node

_FONT_KEYWORDS = {
    "xx-small": 9.0,
    "x-small": 10.0,
    "small": 13.0,
    "medium": 16.0,
    "large": 18.0,
    "x-large": 24.0,
    "xx-large": 32.0,
}
TEXT_ELEMENTS = frozenset({"tspan", "textPath", "a"})


class Env(NamedTuple):
    """What lengths are relative to: the viewport (for percentages) and the font size (for em)."""

    viewport: tuple[float, float]
    font_size: float

    def x(self, value: str | None, default: float = 0.0) -> float:
        found = length(value, reference=self.viewport[0], font_size=self.font_size)
        return default if found is None else found

    def y(self, value: str | None, default: float = 0.0) -> float:
        found = length(value, reference=self.viewport[1], font_size=self.font_size)
        return default if found is None else found

    def other(self, value: str | None, default: float = 0.0) -> float:
        diagonal = ((self.viewport[0] ** 2 + self.viewport[1] ** 2) / 2) ** 0.5
        found = length(value, reference=diagonal, font_size=self.font_size)
        return default if found is None else found


class Paint(NamedTuple):
    """The inherited properties that change what drawing costs."""

    fill: str = "black"
    stroke: str = "none"
    stroke_width: str = "1"
    markers: tuple[str, str, str] = ("none", "none", "none")
    visible: bool = True


INHERITED = frozenset(
    {"fill", "stroke", "stroke-width", "marker-start", "marker-mid", "marker-end", "visibility", "font-size"}
)


def inherit(paint: Paint, env: Env, node: Node) -> tuple[Paint, Env]:
    """`node`'s paint and length environment, from its parent's (the same objects when unchanged)."""
    if INHERITED.isdisjoint(node.attrs):
        return paint, env
    get = node.attrs.get
    markers = (
        get("marker-start", paint.markers[0]),
        get("marker-mid", paint.markers[1]),
        get("marker-end", paint.markers[2]),
    )
    visibility = get("visibility")
    new = paint._replace(
        fill=_inherited(get("fill"), paint.fill),
        stroke=_inherited(get("stroke"), paint.stroke),
        stroke_width=_inherited(get("stroke-width"), paint.stroke_width),
        markers=markers,
        visible=paint.visible if visibility in (None, "inherit") else visibility == "visible",
    )
    size = get("font-size")
    if size is None:
        return new, env
    font_size = _FONT_KEYWORDS.get(size.strip(), length(size, reference=env.font_size, font_size=env.font_size))
    return new, env if font_size is None or font_size <= 0 else env._replace(font_size=font_size)


def _inherited(value: str | None, parent: str) -> str:
    return parent if value is None or value.strip() == "inherit" else value.strip()


def reference(value: str | None) -> str | None:
    """The id in `url(#id)` (or `#id` for href), else None."""
    if not value:
        return None
    text = value.strip()
    if text.startswith("url("):
        text = text[4:].split(")", 1)[0].strip().strip("\"'")
    return text[1:] if text.startswith("#") and len(text) > 1 else None


def outline(node: Node, env: Env) -> Outline | None:
    """The outline of a basic shape or path in its own user space; None when it draws nothing."""
    get = node.attrs.get
    name = node.name
    if name == "path":
        return path_outline(get("d", "") or "")
    if name == "rect":
        x, y = env.x(get("x")), env.y(get("y"))
        width, height = env.x(get("width")), env.y(get("height"))
        if width <= 0 or height <= 0:
            return None
        return Outline((x, y, x + width, y + height), 2 * (width + height), 4, False)
    if name in ("circle", "ellipse"):
        cx, cy = env.x(get("cx")), env.y(get("cy"))
        if name == "circle":
            rx = ry = env.other(get("r"))
        else:
            rx, ry = env.x(get("rx"), -1.0), env.y(get("ry"), -1.0)
            rx, ry = (ry if rx < 0 else rx), (rx if ry < 0 else ry)
        if rx <= 0 or ry <= 0:
            return None
        return Outline((cx - rx, cy - ry, cx + rx, cy + ry), 3.15 * (rx + ry), 4, True)
    if name == "line":
        x1, y1, x2, y2 = env.x(get("x1")), env.y(get("y1")), env.x(get("x2")), env.y(get("y2"))
        box = (min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2))
        return Outline(box, ((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5, 2, False)
    if name in ("polyline", "polygon"):
        values = numbers(get("points"))
        if len(values) < 4:
            return None
        pairs = " ".join(f"{values[i]} {values[i + 1]}" for i in range(0, len(values) - 1, 2))
        return path_outline("M" + pairs + ("z" if name == "polygon" else ""))
    return None


def text_chunks(node: Node) -> list[tuple[int, int]]:
    """(characters, tspans) of each run of a <text> that resvg lays out as one: a tspan or textPath
    with its own x or y starts a new run."""
    chunks: list[list[int]] = [[0, 0]]

    def visit(element: Node, top: bool) -> None:
        if (not top and element.name in ("textPath",)) or (not top and ("x" in element.attrs or "y" in element.attrs)):
            chunks.append([0, 0])
        chunks[-1][0] += element.chars
        chunks[-1][1] += 1
        for child in element.children:
            if child.name in TEXT_ELEMENTS:
                visit(child, False)

    visit(node, True)
    return [(chars, spans) for chars, spans in chunks if chars]


def text_box(node: Node, env: Env) -> Box | None:
    """A box holding a <text>'s glyphs: each positioned run from its x/y, one em per character."""
    font = env.font_size
    box: Box | None = None

    def visit(element: Node, x: float, y: float) -> None:
        nonlocal box
        xs = [env.x(f"{value}") for value in numbers(element.attrs.get("x"))] or [x]
        ys = [env.y(f"{value}") for value in numbers(element.attrs.get("y"))] or [y]
        run = _run_chars(element) * font
        piece = (min(xs), min(ys) - font, max(xs) + run, max(ys) + font / 2)
        box = (
            piece
            if box is None
            else (min(box[0], piece[0]), min(box[1], piece[1]), max(box[2], piece[2]), max(box[3], piece[3]))
        )
        for child in element.children:
            if child.name in TEXT_ELEMENTS:
                visit(child, min(xs), min(ys))

    visit(node, 0.0, 0.0)
    return box if _run_chars(node) else None


def _run_chars(element: Node) -> int:
    return element.chars + sum(_run_chars(child) for child in element.children if child.name in TEXT_ELEMENTS)


def viewbox_transform(node: Node, width: float, height: float) -> Affine:
    """The transform a viewBox and preserveAspectRatio map onto a width x height viewport."""
    view = view_box(node.attrs.get("viewBox"))
    if view is None or width <= 0 or height <= 0:
        return IDENTITY
    x, y, view_w, view_h = view
    aspect = (node.attrs.get("preserveAspectRatio") or "xMidYMid meet").split()
    sx, sy = width / view_w, height / view_h
    if aspect[0] != "none":
        sx = sy = max(sx, sy) if aspect[-1] == "slice" else min(sx, sy)
    align = aspect[0]
    dx = {"xMin": 0.0, "xMax": 1.0}.get(align[:4], 0.5) * (width - view_w * sx) if align != "none" else 0.0
    dy = {"YMin": 0.0, "YMax": 1.0}.get(align[4:], 0.5) * (height - view_h * sy) if align != "none" else 0.0
    return multiply((1.0, 0.0, 0.0, 1.0, dx, dy), (sx, 0.0, 0.0, sy, -x * sx, -y * sy))


DEFAULT_SIZE = (100.0, 100.0)  # usvg's size for a width or height it cannot read


def intrinsic_size(attrs: dict[str, str]) -> tuple[float, float] | None:
    """An <svg>'s size from its width, height and viewBox (None when it gives none of them).

    :raises ValueError: a size of zero or less, or not finite ("inf", "1e400", "NaN").
    """
    if not any(attrs.get(name) for name in ("width", "height", "viewBox")):
        return None
    view = view_box(attrs.get("viewBox"))
    box = (view[2], view[3]) if view else None
    width, height = _absolute(attrs.get("width")), _absolute(attrs.get("height"))
    if width is None and height is None:
        return box or DEFAULT_SIZE
    if box:
        width = width if width is not None else (height or 0) * box[0] / box[1]
        height = height if height is not None else (width or 0) * box[1] / box[0]
    size = (width if width is not None else DEFAULT_SIZE[0], height if height is not None else DEFAULT_SIZE[1])
    if not all(0 < side < math.inf for side in size):  # NaN too: its comparisons are all false
        raise ValueError(f"the SVG has an invalid size ({size[0]:g} x {size[1]:g})")
    return size


def _absolute(value: str | None) -> float | None:
    """A length in user units, or None when absent or a percentage."""
    if value is None or value.strip().endswith("%"):
        return None
    return length(value, reference=0.0)
