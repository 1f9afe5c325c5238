"""The walk of `svg_cost`: each drawn element once per distinct context, with what it brings in."""

from __future__ import annotations

from fileapi.convert import svg_rates as rate
from fileapi.convert.svg_cost import DRAWN, SHAPES, Context, Cost, depth_error
from fileapi.convert.svg_geometry import IDENTITY, Affine, Box, map_box, multiply, parse_transform, union, view_box
from fileapi.convert.svg_images import InflationBudget, NestedSvg, Raster, embedded_image
from fileapi.convert.svg_shapes import (
    Env,
    Paint,
    inherit,
    intrinsic_size,
    outline,
    reference,
    text_box,
    text_chunks,
    viewbox_transform,
)
from fileapi.convert.svg_tree import MAX_NESTING, Node, Tree
from fileapi.errors import InvalidInput

VIEWPORTS = frozenset({"svg", "symbol"})  # establish a viewport, clipped unless overflow is visible


class Walker:
    """Costs of the elements of one document (an SVG image inside it gets a Walker of its own)."""

    def __init__(self, tree: Tree, budget: InflationBudget) -> None:
        self.tree = tree
        self.budget = budget
        self.memo: dict[tuple[int, Context], Cost] = {}
        self.boxes: dict[tuple[int, Env, Paint, bool], Box | None] = {}
        self.active: set[int] = set()  # elements being drawn (a reference back to one is left out)
        self.measuring: set[int] = set()  # elements whose box is being computed

    def find(self, value: str | None, *names: str) -> Node | None:
        """The element `url(#id)` or `#id` names, when it is one of `names`."""
        if not value or "#" not in value:
            return None
        identifier = reference(value)
        node = self.tree.ids.get(identifier) if identifier else None
        return node if node is not None and node.name in names else None

    def element(self, node: Node, context: Context, depth: int) -> Cost:
        """Drawing `node` (a drawn element) once in `context`, `depth` levels down resvg's recursion."""
        if node.name not in DRAWN or node.attrs.get("display") == "none":
            return Cost()
        if depth > MAX_NESTING:
            raise depth_error(depth)
        key = (id(node), context)
        known = self.memo.get(key)
        if known is not None:
            if depth + known.height - 1 > MAX_NESTING:
                raise depth_error(depth + known.height - 1)
            return known
        if id(node) in self.active:  # a reference back into itself: resvg leaves it out
            return Cost()
        self.active.add(id(node))
        try:
            cost = self._draw(node, context, depth)
        finally:
            self.active.discard(id(node))
        self.memo[key] = cost
        return cost

    def _draw(self, node: Node, context: Context, depth: int) -> Cost:
        from fileapi.convert.svg_effects import isolate

        paint, env = inherit(context.paint, context.env, node)
        local = parse_transform(node.attrs.get("transform"))
        viewport: Box | None = None
        if node.name == "use":
            target = self.find(node.attrs.get("href"), *DRAWN, "symbol")
            if target is None:
                return Cost()
            local = multiply(local, (1.0, 0.0, 0.0, 1.0, env.x(node.attrs.get("x")), env.y(node.attrs.get("y"))))
            if target.name in VIEWPORTS and _clips(target):
                viewport = self._use_viewport(node, target, env)
        elif node.name == "svg" and node is not self.tree.root and _clips(node):
            viewport = self.viewport_of(node, env)
        inner = context.then(local)
        if paint is not context.paint or env is not context.env:
            inner = inner._replace(paint=paint, env=env)
        cost = isolate(self, node, inner, depth, viewport)
        cost.charge("elements", rate.ELEMENT_NS, node)
        cost.held += rate.ELEMENT_BYTES
        cost.height += 1
        return cost

    def content(self, node: Node, context: Context, depth: int) -> Cost:
        """What `node` draws itself, in its own coordinates (`context` includes its transform)."""
        name = node.name
        if name in SHAPES:
            from fileapi.convert.svg_effects import shape

            return shape(self, node, context, depth)
        if name == "text":
            return self._text(node, context)
        if name == "image":
            return self._image(node, context, depth)
        if name == "use":
            target = self.find(node.attrs.get("href"), *DRAWN, "symbol")
            if target is None:
                return Cost()
            if target.name in VIEWPORTS:
                box = self._use_viewport(node, target, context.env)
                drawn = self.children(target, self._viewport_context(target, box, context), depth + 1)
                drawn.height += 1
                return drawn
            return self.element(target, context, depth + 1)
        if name == "svg" and node is not self.tree.root:
            box = self.viewport_of(node, context.env)
            return self.children(node, self._viewport_context(node, box, context), depth)
        if name == "switch":
            costs = [self.element(child, context, depth + 1) for child in node.children]
            return max(costs, key=lambda cost: cost.ns, default=Cost())
        return self.children(node, context, depth)

    def children(self, node: Node, context: Context, depth: int) -> Cost:
        total = Cost()
        for child in node.children:
            total.then(self.element(child, context, depth + 1))
        return total

    def viewport_of(self, node: Node, env: Env) -> Box:
        x, y = env.x(node.attrs.get("x")), env.y(node.attrs.get("y"))
        width = env.x(node.attrs.get("width"), env.viewport[0])
        height = env.y(node.attrs.get("height"), env.viewport[1])
        return x, y, x + width, y + height

    def _use_viewport(self, use: Node, target: Node, env: Env) -> Box:
        width = use.attrs.get("width") or target.attrs.get("width")
        height = use.attrs.get("height") or target.attrs.get("height")
        return 0.0, 0.0, env.x(width, env.viewport[0]), env.y(height, env.viewport[1])

    def _viewport_context(self, node: Node, box: Box, context: Context) -> Context:
        width, height = box[2] - box[0], box[3] - box[1]
        mapping = multiply((1.0, 0.0, 0.0, 1.0, box[0], box[1]), viewbox_transform(node, width, height))
        view = view_box(node.attrs.get("viewBox"))
        size = (view[2], view[3]) if view else (width, height)
        return context.then(mapping)._replace(env=context.env._replace(viewport=size))

    def _text(self, node: Node, context: Context) -> Cost:
        cost = Cost()
        what = node
        for chars, spans in text_chunks(node):
            ns = rate.TEXT_NS + rate.GLYPH_NS * chars + rate.CHUNK_CHAR_NS * chars**2 + rate.CHUNK_SPAN_NS * spans**2
            cost.charge("text", ns, what)
            cost.held += rate.GLYPH_BYTES * chars
        cost.charge("text", rate.FILL_NS * context.on_target(context.size(text_box(node, context.env))), what)
        return cost

    def _image(self, node: Node, context: Context, depth: int) -> Cost:
        found = embedded_image(node.attrs.get("href") or "", self.budget)
        cost = Cost()
        if found is None:
            return cost
        env = context.env
        x, y = env.x(node.attrs.get("x")), env.y(node.attrs.get("y"))
        if isinstance(found, Raster):
            width = env.x(node.attrs.get("width"), float(found.width))
            height = env.y(node.attrs.get("height"), float(found.height))
            pixels = found.width * found.height
            drawn = context.on_target(context.size((x, y, x + width, y + height)))
            cost.charge("images", rate.IMAGE_DECODE_NS * pixels + rate.IMAGE_DRAW_NS * drawn, node)
            cost.peak = 4.0 * pixels
            cost.held = float(found.encoded_bytes)
            return cost
        return self._svg_image(node, found, context, depth, (x, y))

    def _svg_image(self, node: Node, found: NestedSvg, context: Context, depth: int, at: tuple[float, float]) -> Cost:
        from fileapi.convert.svg_tree import parse_tree

        try:
            tree = parse_tree(found.data)
            natural = intrinsic_size(tree.root.attrs) or (100.0, 100.0)
        except (InvalidInput, ValueError):  # resvg leaves out an SVG image it cannot read
            return Cost()
        env = context.env
        width = env.x(node.attrs.get("width"), natural[0])
        height = env.y(node.attrs.get("height"), natural[1])
        fit = min(width / natural[0], height / natural[1])
        inner = context.then(multiply((fit, 0.0, 0.0, fit, at[0], at[1]), viewbox_transform(tree.root, *natural)))
        nested = Walker(tree, self.budget)
        root_env = Env(viewport=natural, font_size=16.0)
        cost = Cost()
        area = context.target[0] * context.target[1]
        cost.charge("images", rate.NESTED_SVG_NS * area, node)
        drawn = nested.children(tree.root, inner._replace(env=root_env, paint=Paint()), depth + 1)
        cost.then(drawn)
        cost.peak += 4.0 * area
        cost.height = max(cost.height, drawn.height + 1)
        return cost

    def extent(self, node: Node, env: Env, paint: Paint, *, visual: bool, depth: int) -> Box | None:
        """`node`'s box in its own coordinates (its transform not applied): its geometry, or with
        `visual` what it paints (strokes, filter regions)."""
        if depth > MAX_NESTING:
            raise depth_error(depth)
        paint, env = inherit(paint, env, node)
        key = (id(node), env, paint, visual)
        if key in self.boxes:
            return self.boxes[key]
        if id(node) in self.measuring:
            return None
        self.measuring.add(id(node))
        try:
            box = self._extent(node, env, paint, visual, depth)
        finally:
            self.measuring.discard(id(node))
        self.boxes[key] = box
        return box

    def _extent(self, node: Node, env: Env, paint: Paint, visual: bool, depth: int) -> Box | None:
        from fileapi.convert.svg_effects import filter_box, stroke_growth

        name = node.name
        box: Box | None = None
        if name in SHAPES:
            found = outline(node, env)
            box = found.box if found else None
            if box is not None and visual:
                grown = stroke_growth(paint, env)
                box = (box[0] - grown, box[1] - grown, box[2] + grown, box[3] + grown)
        elif name == "text":
            box = text_box(node, env)
        elif name == "image":
            x, y = env.x(node.attrs.get("x")), env.y(node.attrs.get("y"))
            box = (x, y, x + env.x(node.attrs.get("width")), y + env.y(node.attrs.get("height")))
        elif name == "use":
            target = self.find(node.attrs.get("href"), *DRAWN, "symbol")
            if target is not None:
                shift = (1.0, 0.0, 0.0, 1.0, env.x(node.attrs.get("x")), env.y(node.attrs.get("y")))
                inner = self._use_viewport(node, target, env) if target.name in VIEWPORTS else None
                box = inner or self.placed(target, env, paint, visual=visual, depth=depth + 1)
                box = map_box(shift, box) if box else None
        elif name in VIEWPORTS and node is not self.tree.root and name == "svg":
            box = self.viewport_of(node, env)
        elif name in DRAWN or name == "symbol":
            for child in node.children:
                box = union(box, self.placed(child, env, paint, visual=visual, depth=depth + 1))
        if visual and box is not None and node.attrs.get("filter", "none") != "none":
            box = filter_box(self, node, env, paint, depth) or box
        return box

    def placed(self, node: Node, env: Env, paint: Paint, *, visual: bool, depth: int) -> Box | None:
        """`node`'s box in its parent's coordinates (its transform applied)."""
        if node.name not in DRAWN or node.attrs.get("display") == "none":
            return None
        box = self.extent(node, env, paint, visual=visual, depth=depth)
        transform: Affine = parse_transform(node.attrs.get("transform")) if box else IDENTITY
        return map_box(transform, box) if box else None


def _clips(node: Node) -> bool:
    """Whether a viewport element clips what it holds (overflow is hidden unless set otherwise)."""
    return (node.attrs.get("overflow") or "hidden") not in ("visible", "auto")
