"""Geometry read from SVG attributes: lengths, transforms, and each shape's extent and outline.

Bounds are upper bounds: a path's box is the box of its points and control points (which contains
the curve), an arc's the box of its end points grown by its radii, and its length the length of its
control polygon (at least the curve's). Values resvg would refuse (a negative size) give nothing.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

Affine = tuple[float, float, float, float, float, float]  # a b c d e f: x' = a x + c y + e, y' = b x + d y + f
Box = tuple[float, float, float, float]  # x0 y0 x1 y1
IDENTITY: Affine = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
_UNITS = {"": 1.0, "px": 1.0, "pt": 4 / 3, "pc": 16.0, "mm": 96 / 25.4, "cm": 96 / 2.54, "in": 96.0}
_NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_LENGTH = re.compile(rf"\s*({_NUMBER})\s*(px|pt|pc|mm|cm|in|em|ex|%|)\s*$", re.IGNORECASE)
_NUMBERS = re.compile(_NUMBER)
_TRANSFORM = re.compile(r"(matrix|translate|scale|rotate|skewX|skewY)\s*\(([^)]*)\)", re.IGNORECASE)
_INVALID_PATH = re.compile(r"[^MmZzLlHhVvCcSsQqTtAa0-9eE.,+\-\s]")
_PATH_TOKEN = re.compile(rf"[MmZzLlHhVvCcSsQqTtAa]|{_NUMBER}")
_ARC_FLAG = re.compile(r"[\s,]*([01])")
_ARGS = {"m": 2, "l": 2, "h": 1, "v": 1, "c": 6, "s": 4, "q": 4, "t": 2, "a": 7, "z": 0}
DEFAULT_FONT_SIZE = 16.0


def length(value: str | None, *, reference: float, font_size: float = DEFAULT_FONT_SIZE) -> float | None:
    """A length in user units; a percentage is of `reference`. None when absent or unreadable."""
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    match = _LENGTH.match(value)
    if match is None:
        return None
    number, unit = float(match.group(1)), match.group(2).lower()
    if unit == "%":
        return number * reference / 100
    if unit == "em":
        return number * font_size
    if unit == "ex":
        return number * font_size / 2
    return number * _UNITS[unit]


def numbers(text: str | None) -> list[float]:
    return [float(piece) for piece in _NUMBERS.findall(text or "")]


def view_box(value: str | None) -> tuple[float, float, float, float] | None:
    """A viewBox's x, y, width and height; None when absent, unreadable or empty."""
    values = numbers(value)
    if len(values) != 4 or values[2] <= 0 or values[3] <= 0:
        return None
    return values[0], values[1], values[2], values[3]


def multiply(outer: Affine, inner: Affine) -> Affine:
    """The transform applying `inner` first, then `outer`."""
    a, b, c, d, e, f = outer
    a2, b2, c2, d2, e2, f2 = inner
    return (
        a * a2 + c * b2,
        b * a2 + d * b2,
        a * c2 + c * d2,
        b * c2 + d * d2,
        a * e2 + c * f2 + e,
        b * e2 + d * f2 + f,
    )


def parse_transform(text: str | None) -> Affine:
    """The transform list of a `transform` attribute (identity when absent or unreadable)."""
    result = IDENTITY
    for name, arguments in _TRANSFORM.findall(text or ""):
        values = numbers(arguments)
        kind = name.lower()
        step: Affine = IDENTITY
        if kind == "matrix" and len(values) == 6:
            step = (values[0], values[1], values[2], values[3], values[4], values[5])
        elif kind == "translate" and values:
            step = (1.0, 0.0, 0.0, 1.0, values[0], values[1] if len(values) > 1 else 0.0)
        elif kind == "scale" and values:
            step = (values[0], 0.0, 0.0, values[1] if len(values) > 1 else values[0], 0.0, 0.0)
        elif kind == "rotate" and values:
            angle = math.radians(values[0])
            cos, sin = math.cos(angle), math.sin(angle)
            step = (cos, sin, -sin, cos, 0.0, 0.0)
            if len(values) == 3:
                cx, cy = values[1], values[2]
                step = multiply(multiply((1.0, 0.0, 0.0, 1.0, cx, cy), step), (1.0, 0.0, 0.0, 1.0, -cx, -cy))
        elif kind in ("skewx", "skewy") and values:
            slope = math.tan(math.radians(values[0]))
            step = (1.0, 0.0, slope, 1.0, 0.0, 0.0) if kind == "skewx" else (1.0, slope, 0.0, 1.0, 0.0, 0.0)
        result = multiply(result, step)
    return result


def scale_of(transform: Affine) -> tuple[float, float]:
    """How much the transform stretches lengths along x and along y."""
    a, b, c, d, _, _ = transform
    return math.hypot(a, b), math.hypot(c, d)


def map_box(transform: Affine, box: Box) -> Box:
    """The box containing `box` after `transform`."""
    a, b, c, d, e, f = transform
    x0, y0, x1, y1 = box
    xs = (a * x0 + c * y0, a * x1 + c * y0, a * x0 + c * y1, a * x1 + c * y1)
    ys = (b * x0 + d * y0, b * x1 + d * y0, b * x0 + d * y1, b * x1 + d * y1)
    return min(xs) + e, min(ys) + f, max(xs) + e, max(ys) + f


def union(first: Box | None, second: Box | None) -> Box | None:
    if first is None:
        return second
    if second is None:
        return first
    return min(first[0], second[0]), min(first[1], second[1]), max(first[2], second[2]), max(first[3], second[3])


def grow(box: Box, by: float) -> Box:
    return box[0] - by, box[1] - by, box[2] + by, box[3] + by


@dataclass(frozen=True)
class Outline:
    """A shape's extent (user units), the length of its outline and its vertices (for markers)."""

    box: Box
    length: float
    vertices: int
    curved: bool


def path_outline(data: str) -> Outline | None:
    """The outline of path data `d`; None when it draws nothing. Reading stops where the data stops
    making sense, as usvg's does (what came before is drawn). One pass of plain arithmetic: the text
    may hold a million numbers."""
    invalid = _INVALID_PATH.search(data)
    pieces = _path_tokens(data[: invalid.start()] if invalid else data)
    if not pieces or pieces[0] not in ("M", "m"):
        return None
    count = len(pieces)
    x = y = start_x = start_y = control_x = control_y = 0.0
    x0 = y0 = math.inf
    x1 = y1 = -math.inf
    total = 0.0
    vertices = 0
    curved = False
    previous = ""  # the previous segment's kind, for the reflected control points of s and t
    command = ""
    index = 0
    hypot = math.hypot
    while index < count:
        piece = pieces[index]
        if piece.isalpha():
            index += 1
            if piece in "Zz":
                total += hypot(start_x - x, start_y - y)
                x, y, command, previous = start_x, start_y, "", ""
            else:
                command = piece
            continue
        if not command:
            break
        kind = command.lower()
        size = _ARGS[kind]
        if index + size > count:
            break
        try:
            values = [float(value) for value in pieces[index : index + size]]
        except ValueError:  # a command letter where a number should be
            break
        index += size
        vertices += 1
        base_x, base_y = (x, y) if command.islower() else (0.0, 0.0)
        if kind == "h":
            points = [(values[0] + base_x, y)]
        elif kind == "v":
            points = [(x, values[0] + base_y)]
        elif kind == "a":
            # the ellipse (its radii grown to reach the end if too small) passes through both ends
            end_x, end_y = values[5] + base_x, values[6] + base_y
            chord = hypot(end_x - x, end_y - y)
            reach = 2 * max(abs(values[0]), abs(values[1]), chord / 2)
            x0, y0 = min(x0, end_x - reach), min(y0, end_y - reach)
            x1, y1 = max(x1, end_x + reach), max(y1, end_y + reach)
            total += math.pi * max(abs(values[0]) + abs(values[1]), chord) - chord
            points = [(end_x, end_y)]
            curved = True
        else:
            points = [(values[i] + base_x, values[i + 1] + base_y) for i in range(0, size, 2)]
            if kind in "st":
                reflected = previous in ("cs" if kind == "s" else "qt")
                points.insert(0, (2 * x - control_x, 2 * y - control_y) if reflected else (x, y))
            if kind != "l" and kind != "m":
                curved = True
                control_x, control_y = points[-2]
        if kind == "m":
            x, y = points[0]
        for point_x, point_y in points:
            total += hypot(point_x - x, point_y - y)
            x, y = point_x, point_y
            if x < x0:
                x0 = x
            if x > x1:
                x1 = x
            if y < y0:
                y0 = y
            if y > y1:
                y1 = y
        if kind == "m":
            start_x, start_y = x, y
            command = "l" if command == "m" else "L"
        previous = kind
    if vertices == 0 or x0 == math.inf:
        return None
    return Outline((x0, y0, x1, y1), total, vertices, curved)


def _path_tokens(data: str) -> list[str]:
    """Command letters and numbers as text; an arc's two flags may be written together ("a1 1 0 01 5 5")."""
    if "a" not in data and "A" not in data:
        return _PATH_TOKEN.findall(data)
    pieces: list[str] = []
    position, arc_index = 0, -1
    while True:
        pattern = _ARC_FLAG if arc_index in (3, 4) else _PATH_TOKEN
        piece = pattern.search(data, position) if pattern is _PATH_TOKEN else pattern.match(data, position)
        if piece is None:
            return pieces
        text = piece.group(piece.lastindex or 0)
        position = piece.end()
        pieces.append(text)
        if text.isalpha():
            arc_index = 0 if text in "Aa" else -1
        elif arc_index >= 0:
            arc_index = (arc_index + 1) % 7
