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
from typing import NamedTuple

from fileapi.convert import svg_rates as rate
from fileapi.convert.svg_geometry import Affine, Box, map_box, multiply, view_box
from fileapi.convert.svg_images import InflationBudget
from fileapi.convert.svg_shapes import Env, Paint, viewbox_transform
from fileapi.convert.svg_tree import MAX_NESTING, Node, Tree
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


@dataclass(frozen=True)
class Prediction:
    seconds: float
    peak_bytes: float  # output_bytes + held_bytes + buffer_bytes
    output_bytes: float  # the canvas, the PNG made of it, and what the caller composes
    held_bytes: float  # resvg's tree: elements, glyph outlines, image data
    buffer_bytes: float  # layers, filter results, pattern tiles, decoded images alive at once
    parts: dict[str, float]
    examples: dict[str, Node | str]


def predict(
    tree: Tree, *, canvas: tuple[int, int], zoom: float, size: tuple[float, float], extra_bytes: float = 0
) -> Prediction:
    """The time and memory of rendering `tree` at `zoom` onto a canvas of `canvas` pixels.

    :param size: the document's intrinsic size (user units) that `zoom` scales.
    :param extra_bytes: memory the caller needs besides resvg's (images it composes afterwards).
    :raises TooLarge: deeper than resvg can recurse, or an embedded image over the limits.
    """
    from fileapi.convert.svg_walk import Walker

    width, height = canvas
    root_ts = multiply((zoom, 0.0, 0.0, zoom, 0.0, 0.0), viewbox_transform(tree.root, *size))
    view = view_box(tree.root.get("viewBox"))
    env = Env(viewport=(view[2], view[3]) if view else size, font_size=16.0)
    context = Context(
        linear=root_ts[:4],
        target=(float(width), float(height)),
        clamp=(5.0 * width, 5.0 * height),
        env=env,
        paint=Paint(),
    )
    walker = Walker(tree, InflationBudget())
    cost = walker.element(tree.root, context, 1)
    cost.charge("style sheets", tree.selectors * tree.elements * rate.CSS_TEST_NS, "the <style> rules")
    output = 2 * 4 * width * height + extra_bytes  # the canvas and the PNG encoded from it
    peak = output + cost.held + cost.peak
    return Prediction(cost.ns / 1e9, peak, output, cost.held, cost.peak, cost.parts, cost.examples)


def check_render_cost(
    tree: Tree, *, canvas: tuple[int, int], zoom: float, size: tuple[float, float], extra_bytes: float = 0
) -> None:
    """Refuse an SVG that would take longer or more memory to render than the budgets allow
    (parameters as `predict`).

    :raises TooLarge: saying how much, what costs most and what to change.
    """
    prediction = predict(tree, canvas=canvas, zoom=zoom, size=size, extra_bytes=extra_bytes)
    at = f"at {canvas[0]}x{canvas[1]}"
    if prediction.seconds > rate.BUDGET_SECONDS:
        raise TooLarge(
            f"rendering this SVG {at} would take about {prediction.seconds:,.0f} s of work, over the "
            f"{rate.BUDGET_SECONDS:g} s this service allows; {_main_cost(prediction)}"
        )
    if prediction.peak_bytes > rate.BUDGET_BYTES:
        mib = 2**20
        raise TooLarge(
            f"rendering this SVG {at} would need about {prediction.peak_bytes / mib:,.0f} MiB of memory, over "
            f"the {rate.BUDGET_BYTES / mib:,.0f} MiB this service allows: {prediction.output_bytes / mib:,.0f} MiB "
            f"for the image itself, {prediction.buffer_bytes / mib:,.0f} MiB for layers, filters, pattern tiles "
            f"and images drawn at once, {prediction.held_bytes / mib:,.0f} MiB for the document's elements and "
            "text; render it smaller or simplify what takes the most"
        )


def _main_cost(prediction: Prediction) -> str:
    category = max(prediction.parts, key=prediction.parts.__getitem__, default="shapes")
    share = prediction.parts.get(category, 0.0) / max(prediction.seconds * 1e9, 1.0)
    found = prediction.examples.get(category, "")
    example = label(found) if isinstance(found, Node) else found
    return f"{share:.0%} of it is {category} ({example}): {HINTS[category]}"


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
