"""Images of every pixel mode through the conversions that change their mode. 16-bit grey: scaled, not clipped to
white (Pillow's own conversion of I;16 to L, RGB or RGBA clips every value over 255), its 16-bit colour key kept as
alpha. LAB: converted to RGB (Pillow's LAB to RGBA has an alpha of 0, and LAB to L is refused). Grey with alpha:
quantised."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageStat

from fileapi.convert.code_reading import read_codes
from fileapi.convert.favicons import favicon_set
from fileapi.convert.image import Fit, compress_image, convert_image, resize_image
from fileapi.convert.image_io import ImageFormat
from fileapi.convert.pixel_modes import eight_bit
from fileapi.convert.qr import generate_qr


def sixteen_bit(image: Image.Image, *, dark: int = 0, light: int = 65535) -> Image.Image:
    """`image` (mode L) as 16-bit grey, 0 at `dark` and 255 at `light`."""
    return image.convert("I").point(lambda value: dark + value * ((light - dark) / 255)).convert("I;16")


def png(image: Image.Image, **options: object) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG", **options)
    return out.getvalue()


def opened(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def on_black(image: Image.Image) -> Image.Image:
    """`image` as L, composited on black when it has alpha."""
    rgba = image.convert("RGBA")
    black = Image.new("RGBA", image.size, (0, 0, 0, 255))
    black.alpha_composite(rgba)
    return black.convert("L")


def mean(image: Image.Image) -> float:
    return float(ImageStat.Stat(on_black(image)).mean[0])


RAMP = Image.linear_gradient("L").resize((300, 200))  # 0 at the top to 255 at the bottom; mean 127.5


def test_eight_bit_scales_16_bit_grey_and_keeps_its_colour_key_as_alpha() -> None:
    image = Image.new("I;16", (4, 1))
    for x, value in enumerate((0, 500, 32896, 65535)):
        image.putpixel((x, 0), value)
    assert [eight_bit(image).getpixel((x, 0)) for x in range(4)] == [0, 1, 128, 255]  # 32896 = 128 x 257
    image.info["transparency"] = 500
    keyed = eight_bit(image)
    assert keyed.mode == "LA" and "transparency" not in keyed.info
    assert [keyed.getpixel((x, 0)) for x in range(4)] == [(0, 255), (1, 0), (128, 255), (255, 255)]


@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA", "P", "F"])
def test_eight_bit_leaves_other_modes_alone(mode: str) -> None:
    image = Image.new(mode, (2, 2))
    assert eight_bit(image) is image


def test_a_16_bit_image_letterboxed_is_the_image_not_white() -> None:
    source = png(sixteen_bit(RAMP))
    for width in (40, 200):  # with Pillow's reduction before Lanczos, and without
        result = opened(resize_image(source, width=width, height=width // 2, fit=Fit.CONTAIN).data)
        assert result.size == (width, width // 2)
        # the ramp (mean 127.5) fills 3/4 of the width, transparent bars the rest: was 190 (clipped to white)
        assert mean(result) == pytest.approx(127.5 * 0.75, abs=4)


def test_a_16_bit_image_padded_into_favicons_is_the_image_not_white() -> None:
    icons = favicon_set(png(sixteen_bit(RAMP)))
    for name, data in icons.pngs.items():
        # the ramp fills 2/3 of the square's height, transparent bars the rest: was 169
        assert mean(opened(data)) == pytest.approx(127.5 * 2 / 3, abs=6), name


def test_a_16_bit_qr_code_whose_dark_modules_are_over_255_is_read() -> None:
    code = opened(generate_qr("sixteen bits").data).convert("L")
    # dark modules at 20,000 of 65,535 (78 of 255 scaled), which clipping turned as white as the light ones
    data = png(sixteen_bit(code, dark=20_000))
    assert [found.text for found in read_codes(data, qr_only=True)] == ["sixteen bits"]


def test_a_16_bit_colour_key_stays_transparent() -> None:
    image = Image.new("I;16", (30, 20), 10_000)
    image.paste(Image.new("I;16", (30, 10), 32_900), (0, 10))  # the key: 128 in 8 bits, its low byte 132
    result = convert_image(png(image, transparency=32_900), to=ImageFormat.PNG).data
    # read by libpng (libvips), as by Pillow: the 16-bit key had been written unchanged beside 8-bit samples (39
    # and 128), where decoders match its low byte, 132, found nowhere: the answer was opaque
    pyvips = pytest.importorskip("pyvips")
    decoded = pyvips.Image.new_from_buffer(result, "")
    assert decoded.hasalpha()
    alpha = decoded.extract_band(decoded.bands - 1)
    assert alpha(15, 15) == [0.0] and alpha(15, 5) == [255.0]


def lab_tiff() -> bytes:
    out = io.BytesIO()
    Image.merge("RGB", (RAMP, RAMP.rotate(180), RAMP)).convert("LAB").save(out, "TIFF")
    return out.getvalue()


def test_a_lab_image_letterboxed_is_opaque() -> None:
    result = opened(resize_image(lab_tiff(), width=40, height=20, fit=Fit.CONTAIN).data)
    # the picture fills 3/4 of the width, opaque (was transparent everywhere: mean 0 on black)
    assert mean(result) == pytest.approx(127.5 * 0.75, abs=5)
    assert result.convert("RGBA").getchannel("A").getpixel((20, 10)) == 255


def test_a_lab_image_is_read_for_codes() -> None:
    code = opened(generate_qr("lab").data).convert("RGB")
    out = io.BytesIO()
    code.convert("LAB").save(out, "TIFF")
    assert [found.text for found in read_codes(out.getvalue(), qr_only=True)] == ["lab"]  # was a 500


def test_grey_with_alpha_is_quantised() -> None:
    source = png(RAMP.convert("LA"))
    result = opened(compress_image(source, quality=50, palette_colors=8).data)  # was a 500
    assert result.mode in ("P", "PA") and len(result.getcolors() or []) <= 8
    assert mean(result) == pytest.approx(127.5, abs=10)
