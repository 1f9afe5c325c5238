"""The SVG cost prediction: each hostile construct refused with 413 and what to change, the same
construct just under its limit still rendered (the nesting cases at the limit render without crashing:
the limit is half the depth at which resvg's stack overflows)."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest
from PIL import Image

from fileapi.convert.render import svg_to_png
from fileapi.convert.svg_rates import BUDGET_BYTES, BUDGET_SECONDS
from fileapi.convert.svg_tree import MAX_NESTING
from fileapi.errors import TooLarge
from tests import hostile_svg as h
from tests.hostile_files import png_claiming

# Levels each construct adds per link: the element and what it references. The root <svg> and the
# innermost element make 2 more, and a chain's first reference 1 (<defs> is a sibling).
CHAINS: list[tuple[str, Callable[[int], bytes], int]] = [
    ("g", lambda n: h.wrapped("g", n), 1),
    ("svg", lambda n: h.wrapped("svg", n), 1),
    ("a", lambda n: h.wrapped("a", n), 1),
    ("switch", lambda n: h.wrapped("switch", n), 1),
    ("tspan", h.nested_text, 1),
    ("use -> g", h.use_chain, 2),
    ("use -> symbol", h.symbol_chain, 2),
    ("pattern", h.pattern_chain, 2),
    ("mask", h.mask_chain, 2),
    ("clip path", h.clip_chain, 2),
    ("marker", h.marker_chain, 2),
    ("feImage", h.feimage_chain, 2),
]


def drawn(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGBA")


@pytest.mark.parametrize(("name", "build", "per_link"), CHAINS, ids=[case[0] for case in CHAINS])
def test_nesting_at_the_limit_renders_and_one_more_is_too_large(
    name: str, build: Callable[[int], bytes], per_link: int
) -> None:
    links = (MAX_NESTING - 1 - per_link) // per_link
    assert drawn(svg_to_png(build(links))).size == (20, 20)
    with pytest.raises(TooLarge, match=f"more than {MAX_NESTING} levels deep"):
        svg_to_png(build(links + 1))


def test_nesting_of_groups_at_the_limit_draws_the_innermost_shape() -> None:
    rendered = drawn(svg_to_png(h.wrapped("g", MAX_NESTING - 2)))
    assert rendered.getpixel((2, 2)) == (0, 0, 0, 255)
    assert rendered.getpixel((10, 10)) == (0, 0, 0, 0)


def test_ten_thousand_nested_groups_are_refused_while_reading() -> None:
    with pytest.raises(TooLarge, match="flatten nested groups"):
        svg_to_png(h.wrapped("g", 10_000))


@pytest.mark.parametrize(
    ("document", "category", "culprit"),
    [
        (h.filtered('<feTurbulence baseFrequency="0.05" numOctaves="70000"/>', 50), "filters", '<filter id="f">'),
        (h.filtered('<feMorphology radius="50"/>', 1000), "filters", '<filter id="f">'),
        (h.convolution(300, 1000), "filters", '<filter id="f">'),
        (h.filtered("<feMerge>" + "<feMergeNode/>" * 500 + "</feMerge>", 1000), "filters", '<filter id="f">'),
        (h.blur_page(50, 8000, 6000), "filters", '<filter id="f">'),
        (h.filter_fanout(12, 200), "filters", '<filter id="f">'),
        (h.opacity_layers(1000, 1000), "layers", "<rect>"),
        (h.nested_layers(20), "layers", "<g>"),
        (h.tspans(10_000), "text", "<text>"),
        (h.long_text(150_000), "text", "<text>"),
        (h.hairline_curves(20_000), "strokes", "<path>"),
        (h.markers(4000, 300), "markers", '<marker id="m">'),
        (h.use_fanout(30), "elements", "<rect"),
    ],
    ids=[
        "turbulence",
        "morphology",
        "convolution",
        "merge",
        "blur",
        "filter fan-out",
        "opacity layers",
        "nested layers",
        "tspans",
        "long text",
        "hairlines",
        "markers",
        "use fan-out",
    ],
)
def test_work_over_the_time_budget_is_too_large_naming_its_main_cost(
    document: bytes, category: str, culprit: str
) -> None:
    with pytest.raises(TooLarge, match=rf"over the {BUDGET_SECONDS:g} s this service allows") as refused:
        svg_to_png(document)
    assert f"of it is {category} ({culprit}" in str(refused.value)


@pytest.mark.parametrize(
    "document",
    [
        h.filtered('<feTurbulence baseFrequency="0.05" numOctaves="200"/>', 50),
        h.filtered('<feMorphology radius="3"/>', 300),
        h.convolution(5, 300),
        h.blur_page(50, 400, 300),
        h.filter_fanout(3, 100),
        h.opacity_layers(20, 300),
        h.tspans(300),
        h.long_text(3000),
        h.hairline_curves(100),
        h.markers(50, 30),
        h.use_fanout(8),
        h.pattern_tile(500),
    ],
    ids=[
        "turbulence",
        "morphology",
        "convolution",
        "blur",
        "filter fan-out",
        "opacity layers",
        "tspans",
        "long text",
        "hairlines",
        "markers",
        "use fan-out",
        "pattern",
    ],
)
def test_the_same_constructs_under_the_budgets_render(document: bytes) -> None:
    assert drawn(svg_to_png(document)).getchannel("A").getbbox() is not None


def test_memory_over_the_budget_is_too_large() -> None:
    with pytest.raises(TooLarge, match=rf"over the {BUDGET_BYTES / 2**20:,.0f} MiB this service allows"):
        svg_to_png(h.pattern_tile(20_000))


def test_a_filter_region_far_past_the_canvas_costs_what_resvg_keeps_of_it() -> None:
    # resvg keeps a layer within 5 x 5 canvases: the same region at 1000 px renders, at 7000 px it is refused
    region = 'x="-100" y="-100" width="200" height="200"'
    assert drawn(svg_to_png(h.filtered('<feOffset dx="1"/>', 100, region=region))).size == (100, 100)
    with pytest.raises(TooLarge, match="filters"):
        svg_to_png(h.filtered('<feOffset dx="1"/>', 7000, region=region))


def test_rendering_smaller_admits_what_is_refused_at_full_size() -> None:
    document = h.blur_page(50, 8000, 6000)
    assert drawn(svg_to_png(document, width=400)).size == (400, 300)


def test_an_embedded_image_over_the_pixel_limit_is_refused_from_its_header() -> None:
    with pytest.raises(TooLarge, match="an image embedded in the SVG is 12000x12000 = 144,000,000 pixels"):
        svg_to_png(h.embedded_image(png_claiming(12_000, 12_000)))


def test_an_embedded_image_decoded_at_every_draw_counts_every_draw() -> None:
    out = io.BytesIO()
    Image.new("RGB", (3000, 3000), (0, 0, 255)).save(out, "PNG")
    assert drawn(svg_to_png(h.embedded_image(out.getvalue()))).getpixel((5, 5)) == (0, 0, 255, 255)
    with pytest.raises(TooLarge, match="of it is images"):
        svg_to_png(h.embedded_image(out.getvalue(), copies=600))


def test_nested_svg_images_inflating_past_the_limit_are_too_large() -> None:
    with pytest.raises(TooLarge, match="inflate to more than 16,777,216 bytes"):
        svg_to_png(h.inflating_svg_image(20))


def test_style_sheets_too_costly_to_apply_are_too_large() -> None:
    with pytest.raises(TooLarge, match="selector tests"):
        svg_to_png(h.style_rules(2000, 20_000))
