"""What `svg_cost` charges for layers, filters, clip paths, masks, patterns, strokes and markers.

An element with opacity below 1, a clip path, a mask, a filter, a blend mode, isolation, or a
viewport that clips (nested <svg>, <symbol>, <marker>) is drawn into a layer of its own: a pixmap
the size of what it paints (of its filter region when filtered), at most 5 x 5 canvases, composited
onto its target afterwards. A filter computes every primitive over its whole region and keeps every
result until the last primitive is done.
"""

from __future__ import annotations

import math
import re

from fileapi.convert import svg_rates as rate
from fileapi.convert.svg_cost import Context, Cost, Walking, label
from fileapi.convert.svg_geometry import Box, length, numbers, parse_transform, scale_of, union
from fileapi.convert.svg_shapes import Env, Paint, outline, viewbox_transform
from fileapi.convert.svg_tree import Node

_FUNCTION = re.compile(r"([a-z-]+)\(([^()]*(?:\([^()]*\)[^()]*)*)\)", re.IGNORECASE)
_ISOLATING = frozenset({"opacity", "clip-path", "mask", "filter", "mix-blend-mode", "isolation"})
_HREF_CHAIN = 16  # templates followed through href (patterns, filters) before giving up


def stroke_growth(paint: Paint, env: Env) -> float:
    """How far a stroke can reach past a shape's geometry (a miter joint reaches twice the width)."""
    if paint.stroke == "none":
        return 0.0
    return max(env.other(paint.stroke_width, 1.0), 0.0)


def isolate(walker: Walking, node: Node, context: Context, depth: int, viewport: Box | None) -> Cost:
    """`node` drawn in `context`, in a layer of its own when it needs one."""
    if viewport is None and _ISOLATING.isdisjoint(node.attrs):
        return walker.content(node, context, depth)
    get = node.attrs.get
    env, paint = context.env, context.paint
    opacity = _number(get("opacity"), 1.0)
    clip = walker.find(get("clip-path"), "clipPath")
    mask = walker.find(get("mask"), "mask")
    filters = _filters(walker, get("filter"))
    blended = (get("mix-blend-mode") or "normal") != "normal" or get("isolation") == "isolate"
    if not (opacity < 1 or clip or mask or filters or blended or viewport is not None):
        return walker.content(node, context, depth)
    if filters:
        region = filter_box(walker, node, env, paint, depth)
        size = context.clamped(context.size(region))
    else:
        box = walker.extent(node, env, paint, visual=True, depth=depth)
        if viewport is not None:
            box = viewport if box is None else _intersection(box, viewport)
        width, height = context.size(box)
        size = context.clamped((width + 4, height + 4) if box else (0.0, 0.0))
    area = size[0] * size[1]
    layer = context._replace(target=size)
    what = node
    cost = Cost()
    cost.charge("layers", rate.LAYER_NS * area + rate.COMPOSITE_NS * context.on_target(size), what)
    cost.then(walker.content(node, layer, depth))
    bounds = walker.extent(node, env, paint, visual=False, depth=depth)
    for filter_node in filters:
        cost.then(_filter(walker, filter_node, node, layer, bounds, depth))
    if clip is not None or viewport is not None:
        cost.charge("layers", rate.CLIP_NS * area, what)
        cost.peak = max(cost.peak, 4.0 * area)
        if clip is not None:
            cost.then(_inside(walker, clip, layer, bounds, depth, "clipPathUnits"))
    if mask is not None:
        cost.charge("layers", rate.MASK_NS * area, what)
        inside = _inside(walker, mask, layer, bounds, depth, "maskContentUnits")
        inside.peak += 4.0 * area
        cost.then(inside)
    cost.peak += 4.0 * area
    return cost


def _intersection(first: Box, second: Box) -> Box:
    return max(first[0], second[0]), max(first[1], second[1]), min(first[2], second[2]), min(first[3], second[3])


def _inside(walker: Walking, holder: Node, layer: Context, bounds: Box | None, depth: int, units: str) -> Cost:
    """The content of a clipPath or mask (and the clip path or mask set on it), drawn into the layer."""
    if id(holder) in walker.active:
        return Cost()
    walker.active.add(id(holder))
    try:
        inner = layer
        if holder.attrs.get(units) == "objectBoundingBox" and bounds is not None:
            inner = layer.then((bounds[2] - bounds[0], 0.0, 0.0, bounds[3] - bounds[1], bounds[0], bounds[1]))
        inner = inner.then(parse_transform(holder.attrs.get("transform")))
        cost = walker.children(holder, inner._replace(paint=Paint()), depth + 1)
        cost.height += 1
        for attribute, name in (("clip-path", "clipPath"), ("mask", "mask")):
            further = walker.find(holder.attrs.get(attribute), name)
            if further is not None:
                kind = "clipPathUnits" if name == "clipPath" else "maskContentUnits"
                cost.then(_inside(walker, further, layer, bounds, depth + 1, kind))
        return cost
    finally:
        walker.active.discard(id(holder))


def _number(value: str | None, default: float) -> float:
    if value is None:
        return default
    text = value.strip()
    try:
        return float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        return default


def _filters(walker: Walking, value: str | None) -> list[Node | tuple[str, str]]:
    """The filters of a `filter` property: <filter> elements and CSS filter functions."""
    if not value or value.strip() == "none":
        return []
    found: list[Node | tuple[str, str]] = []
    for name, argument in _FUNCTION.findall(value):
        if name.lower() == "url":
            node = walker.find(f"url({argument})", "filter")
            if node is not None:
                found.append(node)
        else:
            found.append((name.lower(), argument))
    return found


def filter_box(walker: Walking, node: Node, env: Env, paint: Paint, depth: int) -> Box | None:
    """The union of the regions of `node`'s filters, in its own coordinates."""
    bounds = walker.extent(node, env, paint, visual=False, depth=depth)
    box: Box | None = None
    for entry in _filters(walker, node.attrs.get("filter")):
        box = union(box, _region(walker, entry, bounds, env))
    return box


def _region(walker: Walking, entry: Node | tuple[str, str], bounds: Box | None, env: Env) -> Box | None:
    if isinstance(entry, tuple):
        spread = (-0.5, -0.5, 2.0, 2.0) if entry[0] in ("blur", "drop-shadow") else (-0.1, -0.1, 1.2, 1.2)
        return _fraction_box(bounds, spread) if bounds else None

    def get(name: str) -> str | None:
        return _template_attribute(walker, entry, name)

    if get("filterUnits") == "userSpaceOnUse":
        x, y = env.x(get("x"), -0.1 * env.viewport[0]), env.y(get("y"), -0.1 * env.viewport[1])
        width, height = env.x(get("width"), 1.2 * env.viewport[0]), env.y(get("height"), 1.2 * env.viewport[1])
        return (x, y, x + width, y + height) if width > 0 and height > 0 else None
    if bounds is None:
        return None
    spread = (
        _fraction(get("x"), -0.1),
        _fraction(get("y"), -0.1),
        _fraction(get("width"), 1.2),
        _fraction(get("height"), 1.2),
    )
    return _fraction_box(bounds, spread) if spread[2] > 0 and spread[3] > 0 else None


def _fraction(value: str | None, default: float) -> float:
    return _number(value, default)


def _fraction_box(bounds: Box, spread: tuple[float, float, float, float]) -> Box:
    width, height = bounds[2] - bounds[0], bounds[3] - bounds[1]
    x, y = bounds[0] + spread[0] * width, bounds[1] + spread[1] * height
    return x, y, x + spread[2] * width, y + spread[3] * height


def _template_attribute(walker: Walking, node: Node, name: str) -> str | None:
    """An attribute of a pattern or filter, or of the templates its href names."""
    current: Node | None = node
    for _ in range(_HREF_CHAIN):
        if current is None:
            return None
        value = current.attrs.get(name)
        if value is not None:
            return value
        current = walker.find(current.attrs.get("href"), node.name)
    return None


def _template_children(walker: Walking, node: Node) -> list[Node]:
    current: Node | None = node
    for _ in range(_HREF_CHAIN):
        if current is None:
            return []
        if current.children:
            return current.children
        current = walker.find(current.attrs.get("href"), node.name)
    return []


def _filter(
    walker: Walking, entry: Node | tuple[str, str], node: Node, layer: Context, bounds: Box | None, depth: int
) -> Cost:
    """One filter applied to the layer `layer` (of `node`, whose geometry is `bounds`)."""
    region = layer.clamped(layer.size(_region(walker, entry, bounds, layer.env)))
    region = (min(region[0], layer.target[0]), min(region[1], layer.target[1]))
    area = region[0] * region[1]
    cost = Cost()
    if isinstance(entry, tuple):
        ns, count = _function_ns(entry, layer), 1
        what = f"the {entry[0]}() filter on {label(node)}"
    else:
        what = f"{label(entry)} on {label(node)}"
        primitives = [child for child in _template_children(walker, entry) if child.name.startswith("fe")]
        count = len(primitives)
        obb = _template_attribute(walker, entry, "primitiveUnits") == "objectBoundingBox"
        scale = (bounds[2] - bounds[0], bounds[3] - bounds[1]) if obb and bounds else (1.0, 1.0)
        ns = 0.0
        inner = layer._replace(target=region, clamp=region, paint=Paint())
        for primitive in primitives:
            ns += _primitive_ns(primitive, layer, region, scale)
            if primitive.name == "feImage":
                shown = walker.find(
                    primitive.attrs.get("href"),
                    "g",
                    "use",
                    "svg",
                    "path",
                    "rect",
                    "circle",
                    "ellipse",
                    "line",
                    "polyline",
                    "polygon",
                    "text",
                    "image",
                )
                if shown is not None:
                    image = Cost()
                    image.then(walker.element(shown, inner, depth + 2))
                    image.height += 1
                    cost.then(image)
    cost.charge("filters", (rate.FILTER_NS + ns) * area, what)
    cost.peak += 4.0 * area * (count + 2)
    return cost


def _primitive_ns(primitive: Node, layer: Context, region: tuple[float, float], scale: tuple[float, float]) -> float:
    """Time per region pixel of one filter primitive, from its kind and parameters."""
    get = primitive.attrs.get
    name = primitive.name
    sx, sy = scale_of(layer.transform())
    own = rate.PRIMITIVE_RATES.get(name, rate.PRIMITIVE_NS)
    if name in ("feGaussianBlur", "feDropShadow"):
        deviations = numbers(get("stdDeviation")) or [0.0 if name == "feGaussianBlur" else 2.0]
        deviation = max(deviations) * max(sx * scale[0], sy * scale[1])
        iir = rate.IIR_BLUR_NS - rate.PRIMITIVE_RATES["feGaussianBlur"] if 0 < deviation < 2 else 0.0
        return own + iir
    if name == "feTurbulence":
        return own + rate.OCTAVE_NS * max(round(_number(get("numOctaves"), 1.0)), 0)
    if name == "feMorphology":
        radii = numbers(get("radius")) or [0.0]
        rx, ry = radii[0] * sx * scale[0], radii[-1] * sy * scale[1]
        window = min(2 * math.ceil(rx), region[0]) * min(2 * math.ceil(ry), region[1])
        return own + rate.WINDOW_NS * max(window, 0.0)
    if name == "feConvolveMatrix":
        order = numbers(get("order")) or [3.0]
        cells = order[0] * order[-1]
        if len(numbers(get("kernelMatrix"))) != cells:  # usvg draws nothing for a kernel of the wrong size
            return own
        return own + rate.KERNEL_NS * cells
    if name == "feMerge":
        return own + rate.MERGE_NODE_NS * sum(1 for child in primitive.children if child.name == "feMergeNode")
    return own


def _function_ns(entry: tuple[str, str], layer: Context) -> float:
    name, argument = entry
    if name not in ("blur", "drop-shadow"):
        return rate.PRIMITIVE_NS
    deviation = max([abs(value) for value in numbers(argument)] or [0.0]) * max(scale_of(layer.transform()))
    blur = rate.IIR_BLUR_NS if 0 < deviation < 2 else rate.PRIMITIVE_RATES["feGaussianBlur"]
    return blur + (rate.PRIMITIVE_RATES["feDropShadow"] if name == "drop-shadow" else 0.0)


def shape(walker: Walking, node: Node, context: Context, depth: int) -> Cost:
    """A basic shape or path: its fill, stroke and markers."""
    found = outline(node, context.env)
    cost = Cost()
    if found is None or not context.paint.visible:
        return cost
    what = node
    paint, env = context.paint, context.env
    size = context.size(found.box)
    area = context.on_target(size)
    cost.charge("shapes", rate.SEGMENT_NS * found.vertices, what)
    if paint.fill != "none":
        pattern = walker.find(paint.fill, "pattern")
        if pattern is None:
            cost.charge("shapes", rate.FILL_NS * area, what)
        else:
            cost.then(_pattern(walker, pattern, found.box, context, depth, area))
    width = env.other(paint.stroke_width, 1.0)
    if paint.stroke != "none" and width > 0:
        sx, sy = scale_of(context.transform())
        mean = math.sqrt(sx * sy)
        stroke_length, stroke_width = found.length * mean, width * mean
        if stroke_width <= 1:
            cost.charge("strokes", rate.HAIRLINE_NS * stroke_length, what)
            cost.peak = max(cost.peak, rate.HAIRLINE_BYTES * stroke_length)
        else:
            covered = min(
                context.on_target((size[0] + 2 * stroke_width, size[1] + 2 * stroke_width)),
                stroke_length * stroke_width,
            )
            cost.charge("strokes", rate.STROKE_NS * stroke_length + rate.FILL_NS * covered, what)
            pattern = walker.find(paint.stroke, "pattern")
            if pattern is not None:
                cost.then(_pattern(walker, pattern, found.box, context, depth, covered))
    if node.name in ("path", "line", "polyline", "polygon"):
        counts = (1, max(found.vertices - 2, 0), 1)
        for value, count in zip(paint.markers, counts, strict=True):
            marker = walker.find(value, "marker")
            if marker is not None and count:
                cost.then(_marker(walker, marker, context, depth, width), times=count)
    return cost


def _pattern(walker: Walking, pattern: Node, box: Box, context: Context, depth: int, filled: float) -> Cost:
    """A shape filled with a pattern: its tile drawn into a pixmap, then spread over the area."""

    def get(name: str) -> str | None:
        return _template_attribute(walker, pattern, name)

    env = context.env
    if get("patternUnits") == "userSpaceOnUse":
        x, y, width, height = env.x(get("x")), env.y(get("y")), env.x(get("width")), env.y(get("height"))
    else:
        spread = (
            _fraction(get("x"), 0.0),
            _fraction(get("y"), 0.0),
            _fraction(get("width"), 0.0),
            _fraction(get("height"), 0.0),
        )
        x, y, right, bottom = _fraction_box(box, spread)
        width, height = right - x, bottom - y
    cost = Cost()
    if width <= 0 or height <= 0:
        return cost
    sx, sy = scale_of(context.then(parse_transform(get("patternTransform"))).transform())
    tile = (width * sx, height * sy)
    area = tile[0] * tile[1]
    cost.charge("patterns", rate.LAYER_NS * area + rate.PATTERN_FILL_NS * filled, pattern)
    content = (sx, 0.0, 0.0, sy, 0.0, 0.0)
    if get("viewBox"):
        view = viewbox_transform(pattern, width, height)
        content = (sx * view[0], 0.0, 0.0, sy * view[3], 0.0, 0.0)
    elif get("patternContentUnits") == "objectBoundingBox":
        content = (sx * (box[2] - box[0]), 0.0, 0.0, sy * (box[3] - box[1]), 0.0, 0.0)
    inner = Context(linear=content[:4], target=tile, clamp=context.clamp, env=env, paint=Paint())
    drawn = Cost()
    for child in _template_children(walker, pattern):
        drawn.then(walker.element(child, inner, depth + 2))
    drawn.peak += 4.0 * area
    drawn.height += 1
    cost.then(drawn)
    return cost


def _marker(walker: Walking, marker: Node, context: Context, depth: int, stroke_width: float) -> Cost:
    """One marker drawn: its content in a layer clipped to its viewport."""
    env = context.env
    width = length(marker.attrs.get("markerWidth"), reference=env.viewport[0]) or 3.0
    height = length(marker.attrs.get("markerHeight"), reference=env.viewport[1]) or 3.0
    scale = stroke_width if marker.attrs.get("markerUnits", "strokeWidth") == "strokeWidth" else 1.0
    placed = context.then((scale, 0.0, 0.0, scale, 0.0, 0.0))
    size = placed.clamped(placed.size((0.0, 0.0, width, height)))
    inner = placed.then(viewbox_transform(marker, width, height))._replace(target=size, paint=Paint())
    cost = Cost()
    area = size[0] * size[1]
    cost.charge("markers", rate.LAYER_NS * area + (rate.COMPOSITE_NS + rate.CLIP_NS) * context.on_target(size), marker)
    drawn = Cost()
    for child in marker.children:
        drawn.then(walker.element(child, inner, depth + 2))
    drawn.peak += 4.0 * area
    drawn.height += 1
    cost.then(drawn)
    return cost
