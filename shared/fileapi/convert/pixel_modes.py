"""Pixel modes every encoder and drawing step takes, converted once and the same way everywhere.

- **16-bit grey in 8 bits** (`eight_bit`). Pillow's own conversion of a 16-bit grey image (modes I;16*, and I as
  16-bit PNGs and TIFFs decode) to L, RGB or RGBA clips every value over 255 to white where it should scale it,
  and drops a PNG's 16-bit colour key (tRNS): a 16-bit ramp letterboxed, padded into a favicon or read for a
  barcode came out white.
- **RGB or grey** (`rgb_or_grey`): CMYK, YCbCr, LAB and HSV to RGB, 1-bit to L, float to RGB. Pillow converts LAB
  to RGBA with an alpha of 0 (a letterboxed LAB TIFF came out transparent) and not to L at all (a barcode read
  of one was a 500).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL import Image

SIXTEEN_BIT_GREY = frozenset({"I;16", "I;16B", "I;16L", "I;16N", "I"})


def eight_bit(image: Image.Image) -> Image.Image:
    """`image` in mode L, its 16-bit values scaled to 8 (value / 257), or LA where a colour key (the `transparency`
    of its info, a 16-bit value) marks the pixels of that value transparent; any other mode as it is."""
    if image.mode not in SIXTEEN_BIT_GREY:
        return image
    from PIL import Image, ImageMath

    wide = image if image.mode == "I" else image.convert("I")
    grey = wide.point(lambda value: value * (1 / 257)).convert("L")
    info = dict(image.info)
    key = info.pop("transparency", None)
    if isinstance(key, int):
        opaque = ImageMath.lambda_eval(lambda args: (args["value"] != key) * 255, value=wide)
        assert isinstance(opaque, Image.Image)
        grey = Image.merge("LA", (grey, opaque.convert("L")))
    grey.info = info
    return grey


def rgb_or_grey(image: Image.Image) -> Image.Image:
    """`image` in a mode of RGB, grey or a palette, with or without alpha (RGB, RGBA, L, LA, P, PA...): 16-bit
    grey by `eight_bit`, CMYK, YCbCr, LAB, HSV and float to RGB, 1-bit to L; any other mode as it is."""
    image = eight_bit(image)
    if image.mode in _TO_RGB:
        return image.convert("RGB")
    if image.mode == "1":
        return image.convert("L")
    return image


_TO_RGB = frozenset({"CMYK", "YCbCr", "LAB", "HSV", "F"})
