"""An SVG document's element tree as resvg will see it, read once with expat before rendering.

Expat refuses malformed XML and entity-expansion bombs (its amplification limit); elements nested
deeper than MAX_NESTING or more than MAX_ELEMENTS are refused (413) while reading, before the tree
grows. Each element keeps its XML attributes (`raw`, by local name; `xlink:href` is `href` unless
an unprefixed `href` is given, which wins as in usvg) and the attributes after CSS (`attrs`): the
document's style sheets and `style` attributes applied as usvg applies them (`svg_css`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fileapi.convert.svg_css import Rule, declarations, matches, parse_style_sheet
from fileapi.errors import InvalidInput, TooLarge

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
# resvg recurses once per nested element and per reference it follows; in the main thread of a
# process with the default 8 MiB stack it crashes at 250 nested <g> (249 render), 247 patterns or
# masks each filling with the next, 124 markers each drawn by the next (248 levels: marker, path),
# 125 <use> -> <g> pairs and 124 <use> -> <symbol> pairs (`python -m bench.svg_limits depths`). Every
# level and reference counts 1 here, and the limit is half the smallest of those depths.
MAX_NESTING = 124
MAX_ELEMENTS = 200_000
# Selector tests done here to apply style sheets (each costs about 1 us in Python): past this the
# document is refused rather than matched.
MAX_SELECTOR_TESTS = 500_000


@dataclass(eq=False, slots=True)
class Node:
    """One element: its local name ("" outside the SVG namespace), attributes and children."""

    name: str
    local: str  # the local name, whatever the namespace
    raw: dict[str, str]
    parent: Node | None
    previous: Node | None
    depth: int
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[Node] = field(default_factory=list)
    chars: int = 0  # characters of text directly inside

    def get(self, name: str, default: str | None = None) -> str | None:
        return self.attrs.get(name, default)


@dataclass(frozen=True)
class Tree:
    root: Node
    ids: dict[str, Node]
    elements: int
    selectors: int  # style sheet selectors usvg tests against each element


def parse_tree(data: bytes) -> Tree:
    """Read `data` as XML into a Tree with CSS applied.

    :raises InvalidInput: not well-formed XML, or an entity-expansion bomb.
    :raises TooLarge: nesting deeper than MAX_NESTING, more than MAX_ELEMENTS elements, or style
        sheets that would need more than MAX_SELECTOR_TESTS selector tests to apply.
    """
    from xml.parsers import expat

    parser = expat.ParserCreate(namespace_separator=" ")
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    stack: list[Node] = []
    last_child: list[Node | None] = [None]
    nodes: list[Node] = []
    style_texts: list[list[str]] = []

    def start(qualified: str, attributes: dict[str, str]) -> None:
        if len(stack) >= MAX_NESTING:
            raise TooLarge(
                f"the SVG nests elements more than {MAX_NESTING} levels deep, past what the renderer can "
                "draw safely; flatten nested groups"
            )
        if len(nodes) >= MAX_ELEMENTS:
            raise TooLarge(f"the SVG has more than {MAX_ELEMENTS:,} elements; simplify the drawing")
        namespace, _, local = qualified.rpartition(" ")
        parent = stack[-1] if stack else None
        node = Node(
            local if namespace == SVG_NS else "",
            local,
            _local_attributes(attributes),
            parent,
            last_child[-1],
            len(stack),
        )
        if parent is not None:
            parent.children.append(node)
        last_child[-1] = node
        last_child.append(None)
        stack.append(node)
        nodes.append(node)
        if local == "style" and node.raw.get("type", "text/css") == "text/css":
            style_texts.append([])

    def end(_: str) -> None:
        node = stack.pop()
        last_child.pop()
        if node.name == "style" and node.raw.get("type", "text/css") == "text/css" and style_texts:
            style_texts[-1].append("")

    def characters(text: str) -> None:
        if stack:
            node = stack[-1]
            node.chars += len(text)
            if node.name == "style" and style_texts:
                style_texts[-1].append(text)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = characters
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise InvalidInput(
            f"not well-formed XML: {expat.errors.messages.get(exc.code, str(exc))} "
            f"(line {exc.lineno}, column {exc.offset})"
        ) from None
    if not nodes:
        raise InvalidInput("the document has no <svg> element")
    sheets = [parse_style_sheet("".join(texts)) for texts in style_texts]
    rules = [rule for sheet in sheets for rule in sheet.rules]
    _apply_css(nodes, rules)
    ids = {}
    for node in nodes:
        identifier = node.raw.get("id")
        if identifier and identifier not in ids:
            ids[identifier] = node
    return Tree(nodes[0], ids, len(nodes), sum(sheet.selectors for sheet in sheets))


def _local_attributes(attributes: dict[str, str]) -> dict[str, str]:
    local: dict[str, str] = {}
    for qualified, value in attributes.items():
        namespace, _, name = qualified.rpartition(" ")
        if namespace == XLINK_NS and name == "href":
            local.setdefault("href", value)
        elif not namespace or name not in local:
            local[name] = value
    return local


def _apply_css(nodes: list[Node], rules: list[Rule]) -> None:
    """Set each node's `attrs`: its XML attributes, then matching rules, then its style attribute."""
    index: dict[tuple[str, str], list[Rule]] = {}
    for rule in rules:
        index.setdefault(rule.compounds[0].key(), []).append(rule)
    if index:
        tests = sum(sum(len(index.get(key, ())) for key in _keys(node)) for node in nodes)
        if tests > MAX_SELECTOR_TESTS:
            raise TooLarge(
                f"applying the SVG's style sheets takes {tests:,} selector tests, more than {MAX_SELECTOR_TESTS:,}; "
                "use fewer rules or fewer elements"
            )
    for node in nodes:
        style = node.raw.get("style")
        if not index and style is None:
            node.attrs = node.raw
            continue
        attrs = dict(node.raw)
        attrs.pop("style", None)
        important: set[str] = set()
        for rule in _candidates(node, index):
            if matches(rule, node):
                for name, value, is_important in rule.declarations:
                    _declare(attrs, important, name, value, is_important)
        for name, value, is_important in declarations(style or ""):
            _declare(attrs, important, name, value, is_important)
        node.attrs = attrs


def _keys(node: Node) -> list[tuple[str, str]]:
    """The index keys under which rules that may match `node` are found."""
    keys = [("*", ""), ("tag", node.name)]
    identifier = node.raw.get("id")
    if identifier:
        keys.append(("id", identifier))
    keys += [("class", name) for name in node.raw.get("class", "").split()]
    return keys


def _candidates(node: Node, index: dict[tuple[str, str], list[Rule]]) -> list[Rule]:
    found = [rule for key in _keys(node) for rule in index.get(key, ())]
    found.sort(key=lambda rule: rule.order)
    return found


def _declare(attrs: dict[str, str], important: set[str], name: str, value: str, is_important: bool) -> None:
    names = ("marker-start", "marker-mid", "marker-end") if name == "marker" else (name,)
    for each in names:
        if each in important:
            continue
        attrs[each] = value
        if is_important:
            important.add(each)
