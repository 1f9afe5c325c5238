"""SVG rendering: sizes, backgrounds, fonts, SVGZ, and what is refused."""

from __future__ import annotations

import gzip
import io

import pytest
from PIL import Image

from fileapi.convert.render import svg_to_png
from fileapi.errors import InvalidInput, TooLarge

SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100">'
    b'<rect width="100" height="100" fill="#ff0000"/></svg>'
)


def image(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data)).convert("RGBA")


@pytest.mark.parametrize(
    ("options", "size"),
    [
        ({}, (200, 100)),
        ({"scale": 2.5}, (500, 250)),
        ({"scale": 0.1}, (20, 10)),
        ({"width": 50}, (50, 25)),
        ({"height": 50}, (100, 50)),
        ({"width": 300, "height": 300}, (300, 300)),
    ],
)
def test_output_sizes(options: dict[str, float], size: tuple[int, int]) -> None:
    assert image(svg_to_png(SVG, **options)).size == size  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("width", "height", "size"),
    [
        ("210mm", "297mm", (794, 1123)),  # A4 as Inkscape writes it: 96 px an inch, as CSS and ImageMagick
        ("2in", "1in", (192, 96)),
        ("72pt", "36pt", (96, 48)),
        ("6pc", "2.54cm", (96, 96)),
    ],
)
def test_absolute_units_size_the_image_at_96_px_an_inch(width: str, height: str, size: tuple[int, int]) -> None:
    """resvg_py alone refuses these units ("SVG has an invalid size")."""
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height=\'{height}\' viewBox="0 0 10 10">'
        '<rect width="5" height="10" fill="#ff0000"/><svg width="1in" height="1in"/></svg>'
    ).encode()
    rendered = image(svg_to_png(svg))
    assert rendered.size == size
    assert rendered.getpixel((size[0] // 4, size[1] // 2)) == (255, 0, 0, 255)
    assert image(svg_to_png(svg, width=100)).size[0] == 100


def test_pixels_and_transparent_default() -> None:
    rendered = image(svg_to_png(SVG))
    assert rendered.getpixel((50, 50)) == (255, 0, 0, 255)
    assert rendered.getpixel((150, 50))[3] == 0  # type: ignore[index]


@pytest.mark.parametrize(("background", "pixel"), [("white", (255, 255, 255, 255)), ("#00ff0080", (0, 255, 0, 128))])
def test_background_colours(background: str, pixel: tuple[int, int, int, int]) -> None:
    assert image(svg_to_png(SVG, background=background)).getpixel((150, 50)) == pixel


def test_both_sizes_fit_and_centre_the_drawing() -> None:
    rendered = image(svg_to_png(SVG, width=200, height=200, background="blue"))
    assert rendered.getpixel((50, 10)) == (0, 0, 255, 255)  # above the drawing: background
    assert rendered.getpixel((50, 100)) == (255, 0, 0, 255)


def test_text_renders_with_the_bundled_font() -> None:
    svg = (
        b'<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40">'
        b'<text x="5" y="30" font-family="Helvetica" font-size="30">Hello</text></svg>'
    )
    inked = image(svg_to_png(svg)).getchannel("A").getbbox()
    assert inked is not None and inked[2] - inked[0] > 50


def test_svgz_is_accepted() -> None:
    assert image(svg_to_png(gzip.compress(SVG))).size == (200, 100)


def test_svgz_bomb_is_too_large() -> None:
    bomb = gzip.compress(b"<svg xmlns='http://www.w3.org/2000/svg'>" + b" " * (20 * 1024 * 1024) + b"</svg>")
    with pytest.raises(TooLarge, match="inflates"):
        svg_to_png(bomb)


def test_no_size_gets_the_css_default() -> None:
    assert image(
        svg_to_png(b'<svg xmlns="http://www.w3.org/2000/svg"><rect width="1e6" height="1e6"/></svg>')
    ).size == (
        300,
        150,
    )


def test_external_references_are_never_loaded(tmp_path: object) -> None:
    svg = (
        b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="20" height="20">'
        b"<style>@import url(file:///etc/passwd); rect { fill: url(http://example.com/x.svg#p) }</style>"
        b'<image xlink:href="/usr/share/pixmaps/debian-logo.png" width="20" height="20"/>'
        b'<image href="https://example.com/a.png" width="20" height="20"/></svg>'
    )
    assert image(svg_to_png(svg)).getchannel("A").getbbox() is None


def test_data_uri_images_are_rendered() -> None:
    out = io.BytesIO()
    Image.new("RGB", (4, 4), (0, 0, 255)).save(out, "PNG")
    import base64

    uri = b"data:image/png;base64," + base64.b64encode(out.getvalue())
    svg = (
        b'<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><image href="'
        + uri
        + b'" width="4" height="4"/></svg>'
    )
    assert image(svg_to_png(svg)).getpixel((2, 2)) == (0, 0, 255, 255)


@pytest.mark.parametrize(
    ("document", "reason"),
    [
        (b"not xml", "not well-formed"),
        (b"<html></html>", "root element is not <svg>"),
        (
            b'<?xml version="1.0"?><!DOCTYPE s [<!ENTITY a "aaaaaaaaaa">'
            + b"".join(
                b'<!ENTITY a%d "' % i + (b"&a;" if i == 1 else b"&a%d;" % (i - 1)) * 10 + b'">' for i in range(1, 9)
            )
            + b']><svg xmlns="http://www.w3.org/2000/svg"><text>&a8;</text></svg>',
            "amplification",
        ),
        (b'<svg xmlns="http://www.w3.org/2000/svg" width="0" height="10"/>', "invalid size"),
        (b'<svg xmlns="http://www.w3.org/2000/svg" width="-5" height="10"/>', "invalid size"),
        (b'<svg xmlns="http://www.w3.org/2000/svg" width="inf" height="10"/>', "invalid size"),
        (b'<svg xmlns="http://www.w3.org/2000/svg" width="1e400" height="10"/>', "invalid size"),
        (b'<svg xmlns="http://www.w3.org/2000/svg" width="NaN" height="10"/>', "invalid size"),
    ],
)
def test_refused_documents(document: bytes, reason: str) -> None:
    with pytest.raises(InvalidInput, match=reason):
        svg_to_png(document)


def test_output_bounds() -> None:
    with pytest.raises(TooLarge, match="16383"):
        svg_to_png(b'<svg xmlns="http://www.w3.org/2000/svg" width="20000" height="10"/>')
    with pytest.raises(TooLarge, match="50,000,000"):
        svg_to_png(b'<svg xmlns="http://www.w3.org/2000/svg" width="10000" height="10000"/>')


def test_bad_options() -> None:
    with pytest.raises(InvalidInput, match=r"scale must be 0\.1\.\.10"):
        svg_to_png(SVG, scale=11)
    with pytest.raises(InvalidInput, match="not both"):
        svg_to_png(SVG, scale=2, width=10)
    with pytest.raises(InvalidInput, match="not a colour"):
        svg_to_png(SVG, background="nope")


def test_references_with_the_other_quote_or_another_prefix_are_neutralised() -> None:
    from fileapi.convert.render import _neutralised

    text = _neutralised(
        """<image href="/etc/x'y.png"/><image xlink:href='/a"b.png'/><image foo:href="file:///etc/passwd"/>"""
        """<use href="#ok"/><image href=" data:image/png;base64,AAAA"/>"""
    )
    assert "/etc" not in text and "/a" not in text
    assert 'href="#ok"' in text and "data:image/png" in text


def test_css_urls_in_every_quoting_are_neutralised() -> None:
    from fileapi.convert.render import _neutralised

    text = _neutralised(
        """a{b:url("x'y.png")} c{d:url('e"f.png')} g{h:url(/etc/i.png)} j{k:url(#ok)} l{m:url("data:x")}"""
    )
    assert "x'y" not in text and "/etc" not in text and 'e"f' not in text
    assert "url(#ok)" in text and "data:x" in text
