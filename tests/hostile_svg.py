"""Hostile SVG documents, each built from a size or count: nesting through every construct resvg
recurses into, filters with extreme parameters, layers, text, strokes, patterns, markers, <use>
fan-out, embedded images and style sheets. tests/bombs.py names them with their expected answers."""

from __future__ import annotations

import base64
import gzip

NS = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
RECT = '<rect width="5" height="5"/>'


def svg(width: float, height: float, body: str, defs: str = "") -> bytes:
    return f'<svg {NS} width="{width}" height="{height}"><defs>{defs}</defs>{body}</svg>'.encode()


def wrapped(tag: str, depth: int, inner: str = RECT, *, side: float = 20) -> bytes:
    """`depth` elements `tag` nested in one another around `inner`."""
    return svg(side, side, f"<{tag}>" * depth + inner + f"</{tag}>" * depth)


def nested_text(depth: int) -> bytes:
    return svg(20, 20, '<text y="10">' + "<tspan>" * depth + "x" + "</tspan>" * depth + "</text>")


def chain(links: int, start: str, link: str, last: str) -> bytes:
    """`start` drawing element 0 of `links` elements (`link` with {i} its number, {n} the next's),
    each drawing the next, and `last` (with {i}) at the end."""
    defs = "".join(link.format(i=i, n=i + 1) for i in range(links)) + last.format(i=links)
    return svg(20, 20, start, defs)


def use_chain(links: int) -> bytes:
    """<use> -> <g> -> <use> ... `links` times (resvg draws them one inside the other)."""
    return chain(
        links, '<use href="#g0"/>', '<g id="g{i}"><use href="#g{n}"/></g>', '<rect id="g{i}" width="5" height="5"/>'
    )


def symbol_chain(links: int) -> bytes:
    return chain(
        links,
        '<use href="#s0"/>',
        '<symbol id="s{i}"><use href="#s{n}"/></symbol>',
        f'<symbol id="s{{i}}">{RECT}</symbol>',
    )


def pattern_chain(links: int) -> bytes:
    """Patterns each filling a rect with the next."""
    tile = 'width="10" height="10" patternUnits="userSpaceOnUse"'
    link = f'<pattern id="p{{i}}" {tile}><rect width="10" height="10" fill="url(#p{{n}})"/></pattern>'
    return chain(
        links, '<rect width="20" height="20" fill="url(#p0)"/>', link, f'<pattern id="p{{i}}" {tile}>{RECT}</pattern>'
    )


def mask_chain(links: int) -> bytes:
    white = 'width="20" height="20" fill="white"'
    link = f'<mask id="m{{i}}"><rect {white} mask="url(#m{{n}})"/></mask>'
    return chain(
        links, '<rect width="20" height="20" mask="url(#m0)"/>', link, f'<mask id="m{{i}}"><rect {white}/></mask>'
    )


def clip_chain(links: int) -> bytes:
    link = '<clipPath id="c{i}"><rect width="20" height="20" clip-path="url(#c{n})"/></clipPath>'
    last = '<clipPath id="c{i}"><rect width="20" height="20"/></clipPath>'
    return chain(links, '<rect width="20" height="20" clip-path="url(#c0)"/>', link, last)


def marker_chain(links: int) -> bytes:
    """Markers each drawn on a path whose marker is the next."""
    path = '<path d="M0 0L5 5" stroke="black" marker-start="url(#k{n})"/>'
    link = f'<marker id="k{{i}}" markerWidth="10" markerHeight="10">{path}</marker>'
    start = '<path d="M1 1L10 10" stroke="black" marker-start="url(#k0)"/>'
    return chain(links, start, link, f'<marker id="k{{i}}">{RECT}</marker>')


def feimage_chain(links: int) -> bytes:
    """Filters whose feImage draws an element filtered by the next."""
    link = (
        '<filter id="f{i}"><feImage href="#r{n}"/></filter><rect id="r{i}" width="5" height="5" filter="url(#f{i})"/>'
    )
    return chain(links, '<use href="#r0"/>', link, '<rect id="r{i}" width="5" height="5"/>')


def svg_image_chain(links: int) -> bytes:
    """An SVG image (a data: URI) holding an SVG image holding ... `links` deep."""
    document = svg(10, 10, RECT)
    for _ in range(links):
        uri = "data:image/svg+xml;base64," + base64.b64encode(document).decode()
        document = svg(10, 10, f'<image width="10" height="10" href="{uri}"/>')
    return document


def filtered(primitives: str, side: float, *, region: str = 'x="0" y="0" width="1" height="1"') -> bytes:
    """A side x side rect filtered with `primitives` over `region`."""
    defs = f'<filter id="f" {region}>{primitives}</filter>'
    return svg(side, side, f'<rect width="{side}" height="{side}" fill="red" filter="url(#f)"/>', defs)


def convolution(order: int, side: float) -> bytes:
    """A convolution with an order x order kernel (of ones) over a side x side rect."""
    kernel = " ".join(["1"] * order * order)
    return filtered(f'<feConvolveMatrix order="{order}" kernelMatrix="{kernel}"/>', side)


def blur_page(deviation: float, width: int, height: int) -> bytes:
    defs = f'<filter id="f"><feGaussianBlur stdDeviation="{deviation}"/></filter>'
    return svg(width, height, f'<rect width="{width}" height="{height}" filter="url(#f)"/>', defs)


def filter_fanout(levels: int, side: float) -> bytes:
    """One blurred rect drawn 2^levels times through doubling <use> chains."""
    defs = '<filter id="f"><feGaussianBlur stdDeviation="3"/></filter>'
    defs += f'<rect id="u0" width="{side}" height="{side}" filter="url(#f)"/>'
    defs += "".join(
        f'<g id="u{i}"><use href="#u{i - 1}"/><use href="#u{i - 1}" x="1"/></g>' for i in range(1, levels + 1)
    )
    return svg(side, side, f'<use href="#u{levels}"/>', defs)


def use_fanout(levels: int) -> bytes:
    """A 10x10 rect drawn 2^levels times: each group uses the previous twice."""
    defs = '<rect id="u0" width="10" height="10"/>'
    defs += "".join(
        f'<g id="u{i}"><use href="#u{i - 1}"/><use href="#u{i - 1}" x="1"/></g>' for i in range(1, levels + 1)
    )
    return svg(1000, 1000, f'<use href="#u{levels}"/>', defs)


def opacity_layers(count: int, side: int) -> bytes:
    """`count` side x side rects, each with group opacity (a layer each)."""
    return svg(side, side, f'<rect width="{side}" height="{side}" opacity="0.5"/>' * count)


def nested_layers(depth: int) -> bytes:
    """Layers nested `depth` deep around content 300x the canvas (resvg keeps each to 5 x 5 canvases)."""
    inner = '<rect x="-100000" y="-100000" width="300000" height="300000"/>'
    return svg(1000, 1000, '<g opacity="0.9">' * depth + inner + "</g>" * depth)


def tspans(count: int) -> bytes:
    """One text run of `count` tspans (resvg lays a run out in time that grows as the square)."""
    return svg(1000, 1000, '<text y="20" font-size="2">' + "<tspan>ab</tspan>" * count + "</text>")


def long_text(characters: int) -> bytes:
    return svg(1000, 1000, '<text y="20" font-size="2">' + "ab " * (characters // 3) + "</text>")


def hairline_curves(count: int) -> bytes:
    """One path of `count` 1 px wide curves, each 900 px across."""
    return svg(1000, 1000, '<path d="M0 500' + "c300 300 600 -300 900 0" * count + '" fill="none" stroke="black"/>')


def pattern_tile(side: int) -> bytes:
    """A pattern whose one tile is side x side pixels."""
    tile = f'<rect width="{side}" height="{side}"/>'
    defs = f'<pattern id="p" width="{side}" height="{side}" patternUnits="userSpaceOnUse">{tile}</pattern>'
    return svg(100, 100, '<rect width="100" height="100" fill="url(#p)"/>', defs)


def markers(count: int, size: int) -> bytes:
    """A path of `count` vertices, a size x size marker on each."""
    shape = f'<rect width="{size}" height="{size}"/>'
    defs = f'<marker id="m" markerWidth="{size}" markerHeight="{size}" markerUnits="userSpaceOnUse">{shape}</marker>'
    return svg(1000, 1000, '<path d="M0 0' + "l1 1l-1 0" * (count // 2) + '" marker-mid="url(#m)"/>', defs)


def embedded_image(png: bytes, *, copies: int = 1) -> bytes:
    """A 10x10 SVG drawing `png` (a data: URI) `copies` times."""
    uri = "data:image/png;base64," + base64.b64encode(png).decode()
    return svg(10, 10, f'<image width="10" height="10" href="{uri}"/>' * copies)


def inflating_svg_image(megabytes: int) -> bytes:
    """An SVG image, gzip-compressed in a data: URI, that inflates to `megabytes` MB."""
    inner = gzip.compress(b"<svg xmlns='http://www.w3.org/2000/svg'>" + b" " * (megabytes << 20) + b"</svg>", 9)
    uri = "data:image/svg+xml;base64," + base64.b64encode(inner).decode()
    return svg(10, 10, f'<image width="10" height="10" href="{uri}"/>')


def style_rules(rules: int, elements: int) -> bytes:
    """`rules` style sheet rules that all end in `rect`, and `elements` rects to match them against."""
    sheet = "".join(f".c{i} rect{{stroke-width:2}}" for i in range(rules))
    return svg(100, 100, f"<style>{sheet}</style>" + '<rect width="1" height="1"/>' * elements)
