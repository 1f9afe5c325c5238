"""What rendering an SVG with resvg will cost, predicted from its structure before resvg sees it.

The walk follows the document as resvg draws it: every element at its transform and output zoom,
every reference (`<use>`, patterns, masks, clip paths, markers, `feImage`, SVG images) as many
times as it is drawn, memoised so that exponential `<use>` fan-out costs one visit per distinct
element and scale. It adds up the time each part takes at the rates of `svg_rates` and the memory
of the buffers alive at once (layers, filter results, pattern tiles, decoded images), and tracks
resvg's recursion depth. `check_render_cost` refuses (413) what is deeper than the renderer can go
or would take longer or more memory than the budgets, naming what costs most and what to change.
resvg limits every layer and filter region to the canvas grown by twice its size on each side
(5 x 5 canvases), and so does the prediction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from fileapi.convert.svg_geometry import Affine, Box, map_box, multiply
from fileapi.convert.svg_shapes import Env, Paint
from fileapi.convert.svg_tree import MAX_NESTING, Node
from fileapi.errors import TooLarge

SHAPES = frozenset({"path", "rect", "circle", "ellipse", "line", "polyline", "polygon"})
DRAWN = SHAPES | {"svg", "g", "a", "switch", "use", "text", "image"}
HINTS = {
    "filters": "simplify or remove the filters, or render it smaller",
    "layers": "opacity, clip-path, mask and blend modes each draw a layer of their own: use fill-opacity "
    "instead of opacity, clip or mask fewer elements, or render it smaller",
    "text": "use fewer or shorter text runs (a tspan with its own x or y starts a new run)",
    "strokes": "use fewer or shorter strokes, or strokes wider than one pixel",
    "shapes": "use fewer or smaller shapes, or render it smaller",
    "patterns": "use smaller pattern tiles or fewer patterned shapes",
    "markers": "use fewer or smaller markers",
    "images": "embed fewer or smaller images",
    "elements": "use fewer elements (each <use> draws its target again)",
    "style sheets": "use fewer style rules or fewer elements",
}


@dataclass
class Cost:
    """Time (ns) and memory (bytes) of drawing something once, and its recursion height. `held` is
    memory kept for the whole render (resvg's tree, glyph outlines, image data), `peak` the most
    that buffers drawn into take at one moment."""

    ns: float = 0.0
    held: float = 0.0
    peak: float = 0.0
    height: int = 0
    parts: dict[str, float] = field(default_factory=dict)
    examples: dict[str, Node | str] = field(default_factory=dict)  # what first cost something of each kind

    def charge(self, category: str, ns: float, example: Node | str) -> None:
        self.ns += ns
        parts = self.parts
        if category in parts:
            parts[category] += ns
        else:
            parts[category] = ns
            self.examples[category] = example

    def then(self, other: Cost, times: float = 1.0) -> None:
        """Add `other` drawn `times` times after what this holds (memory is freed in between)."""
        if times <= 0:
            return
        self.ns += other.ns * times
        self.held += other.held * times
        parts = self.parts
        for category, ns in other.parts.items():
            if category in parts:
                parts[category] += ns * times
            else:
                parts[category] = ns * times
                self.examples[category] = other.examples[category]
        self.peak = max(self.peak, other.peak)
        self.height = max(self.height, other.height)


class Context(NamedTuple):
    """Where an element is drawn: the linear part of its transform to device pixels, the size of the
    pixmap drawn into, resvg's limit on layer sizes, the viewport for percentages, inherited paint.
    A tuple: it keys the memo of the walk."""

    linear: tuple[float, float, float, float]
    target: tuple[float, float]
    clamp: tuple[float, float]
    env: Env
    paint: Paint

    def transform(self) -> Affine:
        return (*self.linear, 0.0, 0.0)

    def then(self, local: Affine) -> Context:
        if local[:4] == (1.0, 0.0, 0.0, 1.0):
            return self
        a, b, c, d, _, _ = multiply(self.transform(), local)
        return self._replace(linear=(a, b, c, d))

    def size(self, box: Box | None) -> tuple[float, float]:
        """The device size of a user-space box."""
        if box is None:
            return 0.0, 0.0
        x0, y0, x1, y1 = map_box(self.transform(), box)
        return x1 - x0, y1 - y0

    def on_target(self, size: tuple[float, float]) -> float:
        return min(size[0], self.target[0]) * min(size[1], self.target[1])

    def clamped(self, size: tuple[float, float]) -> tuple[float, float]:
        return min(size[0], self.clamp[0]), min(size[1], self.clamp[1])


class Walking(Protocol):
    """What the effects (svg_effects) ask of the walk (svg_walk.Walker) that calls them."""

    active: set[int]

    def find(self, value: str | None, *names: str) -> Node | None: ...

    def element(self, node: Node, context: Context, depth: int) -> Cost: ...

    def content(self, node: Node, context: Context, depth: int) -> Cost: ...

    def children(self, node: Node, context: Context, depth: int) -> Cost: ...

    def extent(self, node: Node, env: Env, paint: Paint, *, visual: bool, depth: int) -> Box | None: ...


def depth_error(depth: int) -> TooLarge:
    return TooLarge(
        f"the SVG nests more than {MAX_NESTING} levels deep, counting what <use>, patterns, masks, clip paths, "
        "markers, filters and SVG images bring in, past what the renderer can draw safely; flatten nested groups "
        "or shorten chains of references"
    )


def label(node: Node) -> str:
    """How a message names an element: <rect id="a"> or <rect>."""
    identifier = node.raw.get("id")
    return f'<{node.name or "?"} id="{identifier[:40]}">' if identifier else f"<{node.name or '?'}>"
