"""How an SVG's structure is read for the cost prediction: CSS as usvg applies it, path outlines,
transforms, text runs and embedded images."""

from __future__ import annotations

import base64
import io
import math

import pytest
from PIL import Image

from fileapi.convert.svg_geometry import Outline, parse_transform, path_outline
from fileapi.convert.svg_images import InflationBudget, NestedSvg, Raster, embedded_image
from fileapi.convert.svg_shapes import text_chunks
from fileapi.convert.svg_tree import Node, parse_tree
from fileapi.errors import TooLarge


def first(tree_text: str, name: str) -> Node:
    tree = parse_tree(tree_text.encode())
    stack = [tree.root]
    while stack:
        node = stack.pop(0)
        if node.name == name:
            return node
        stack.extend(node.children)
    raise AssertionError(name)


def styled(sheet: str, element: str) -> dict[str, str]:
    document = f'<svg xmlns="http://www.w3.org/2000/svg"><style>{sheet}</style><g class="outer">{element}</g></svg>'
    return first(document, "rect").attrs


def test_a_style_rule_overrides_the_attribute_and_the_style_attribute_overrides_the_rule() -> None:
    attrs = styled("rect { opacity: 0.5; stroke-width: 3 }", '<rect opacity="1" style="stroke-width: 4"/>')
    assert (attrs["opacity"], attrs["stroke-width"]) == ("0.5", "4")


def test_an_important_declaration_is_not_overridden_by_what_comes_after() -> None:
    attrs = styled("rect { opacity: 0.5 !important } rect { opacity: 0.2 }", '<rect style="opacity: 1"/>')
    assert attrs["opacity"] == "0.5"


@pytest.mark.parametrize(
    ("sheet", "applies"),
    [
        (".outer rect { filter: url(#f) }", True),
        ("g > rect { filter: url(#f) }", True),
        ("svg > rect { filter: url(#f) }", False),
        ("circle + rect { filter: url(#f) }", True),
        ("rect:first-child { filter: url(#f) }", False),
        ("rect:hover { filter: url(#f) }", False),
        ('rect[data-kind^="sha"] { filter: url(#f) }', True),
        ('rect[data-kind="other"] { filter: url(#f) }', False),
        ("#r { filter: url(#f) }", True),
        ("* { filter: url(#f) }", True),
        ("@media print { rect { fill: red } } rect.x { filter: url(#f) }", True),
    ],
)
def test_selectors_match_as_usvg_matches_them(sheet: str, applies: bool) -> None:
    attrs = styled(sheet, '<circle r="1"/><rect id="r" class="x" data-kind="shadow"/>')
    assert ("filter" in attrs) is applies


def test_the_marker_shorthand_sets_all_three_markers() -> None:
    attrs = styled("rect { marker: url(#m) }", "<rect/>")
    assert (attrs["marker-start"], attrs["marker-mid"], attrs["marker-end"]) == ("url(#m)",) * 3


def test_an_unprefixed_href_wins_over_xlink_href() -> None:
    document = (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
        '<use xlink:href="#a" href="#b"/><use xlink:href="#c"/></svg>'
    )
    tree = parse_tree(document.encode())
    assert [child.attrs["href"] for child in tree.root.children] == ["#b", "#c"]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ("M0 0L10 10", Outline((0.0, 0.0, 10.0, 10.0), math.hypot(10, 10), 2, False)),
        ("m5 5 l10 0 0 10z", Outline((5.0, 5.0, 15.0, 15.0), 20 + math.hypot(10, 10), 3, False)),
        ("M0 0h10v10H0z", Outline((0.0, 0.0, 10.0, 10.0), 40.0, 4, False)),
        (
            "M0 0C10 -20 20 20 30 0",
            Outline((0.0, -20.0, 30.0, 20.0), 2 * math.hypot(10, 20) + math.hypot(10, 40), 2, True),
        ),
        ("M10 10a5 5 0 0110 0", Outline((10.0, 0.0, 30.0, 20.0), 10 * math.pi, 2, True)),
        ("M0 0 L5 5 X 9 9", Outline((0.0, 0.0, 5.0, 5.0), math.hypot(5, 5), 2, False)),
    ],
    ids=["line", "relative", "h-v-close", "cubic", "arc with joined flags", "stops at an error"],
)
def test_path_outlines(data: str, expected: Outline) -> None:
    found = path_outline(data)
    assert found is not None
    assert found.box == expected.box and found.vertices == expected.vertices and found.curved == expected.curved
    assert found.length == pytest.approx(expected.length)


def test_a_path_without_a_move_draws_nothing() -> None:
    assert path_outline("L5 5") is None


def test_transforms_compose_left_to_right() -> None:
    assert parse_transform("translate(10 20) scale(2)") == (2.0, 0.0, 0.0, 2.0, 10.0, 20.0)
    a, b, c, d, e, f = parse_transform("rotate(90 5 5)")
    assert (round(a, 9), round(b, 9), round(c, 9), round(d, 9), round(e, 9), round(f, 9)) == (0, 1, -1, 0, 10, 0)


def test_text_runs_break_where_a_tspan_has_its_own_position() -> None:
    text = first(
        '<svg xmlns="http://www.w3.org/2000/svg"><text>ab<tspan>cd</tspan><tspan x="5">efg</tspan>h</text></svg>',
        "text",
    )
    assert text_chunks(text) == [(5, 2), (3, 1)]


def test_embedded_raster_images_are_read_from_their_headers() -> None:
    out = io.BytesIO()
    Image.new("RGB", (300, 200)).save(out, "PNG")
    href = "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()
    assert embedded_image(href, InflationBudget()) == Raster(300, 200, len(out.getvalue()))
    assert embedded_image("https://example.com/a.png", InflationBudget()) is None


def test_embedded_svg_images_share_one_inflation_budget() -> None:
    href = "data:image/svg+xml," + "<svg xmlns='http://www.w3.org/2000/svg'>" + " " * 100 + "</svg>"
    budget = InflationBudget(200)
    assert isinstance(embedded_image(href, budget), NestedSvg)
    with pytest.raises(TooLarge, match="inflate to more than"):
        embedded_image(href, budget)
