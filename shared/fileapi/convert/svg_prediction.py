"""The prediction of an SVG's rendering cost: the walk (svg_walk) over the document at its zoom and canvas, and
the refusal of what is over the time or memory budget (svg_rates)."""

from __future__ import annotations

from dataclasses import dataclass

from fileapi.convert import svg_rates as rate
from fileapi.convert.svg_cost import HINTS, Context, label
from fileapi.convert.svg_geometry import multiply, view_box
from fileapi.convert.svg_images import InflationBudget
from fileapi.convert.svg_shapes import Env, Paint, viewbox_transform
from fileapi.convert.svg_tree import Node, Tree
from fileapi.convert.svg_walk import Walker
from fileapi.errors import TooLarge


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
