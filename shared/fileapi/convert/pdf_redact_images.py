"""Overwriting an image XObject's pixels under redaction areas.

Each area is mapped back through the image's placement (its CTM) to the pixels it covers (the bounding box of
that parallelogram, so a turned image loses a little more, never less). The image is decoded, those pixels
set to the fill colour (a stencil mask's to unpainted), and written as a new image: JPEG again when it was
one (quality 92), otherwise Flate, 8 bits a sample (a 16-bit one scaled); the page then uses the new image,
so another page drawing the original is not changed. Its masks keep no shape there either: a soft mask
(/SMask) becomes opaque under the areas, a stencil /Mask unpainted; colour-key ranges are kept. An image
that cannot be decoded is replaced by one pixel of the fill colour (removed whole).
"""

from __future__ import annotations

import io
import math
import zlib
from typing import TYPE_CHECKING, Any

from fileapi.convert import deadline
from fileapi.convert.pdf_redact_areas import Rect, apply, invert
from fileapi.convert.pdf_redact_content import ImageUse
from fileapi.convert.pixel_modes import eight_bit

if TYPE_CHECKING:
    import pikepdf
    from PIL import Image

JPEG_QUALITY = 92
MAX_IMAGE_PIXELS = 50_000_000  # decoded to overwrite: as for any image the API reads (image_io.MAX_INPUT_PIXELS)
_KEPT = ("/Interpolate", "/Intent", "/Decode", "/ImageMask")


def overwrite_images(pdf: pikepdf.Pdf, uses: list[ImageUse], fill: tuple[float, float, float]) -> int:
    """Overwrite the pixels of each image use under its areas; the number of images changed."""
    import pikepdf

    changed = 0
    for use in uses:
        deadline.check()
        xobjects = use.resources.get("/XObject")
        image = xobjects.get(use.name) if isinstance(xobjects, pikepdf.Dictionary) else None
        if not isinstance(image, pikepdf.Stream):
            continue
        if not _pixel_boxes(use, image):
            continue
        xobjects[use.name] = _overwritten(pdf, image, use, fill)
        changed += 1
    return changed


def _pixel_boxes(use: ImageUse, image: pikepdf.Stream) -> list[tuple[int, int, int, int]]:
    """The pixel rectangles (left, top, right, bottom) of `use`'s areas on `image` (the one drawn, or its mask:
    a mask covers the same unit square in its own width and height)."""
    width, height = int(image.get("/Width", 0)), int(image.get("/Height", 0))
    inverse = invert(use.ctm)
    if inverse is None or width <= 0 or height <= 0:
        return []
    boxes = []
    for area in use.areas:
        corners = [apply(inverse, x, y) for x in (area.x0, area.x1) for y in (area.y0, area.y1)]
        unit = Rect(min(u for u, _ in corners), min(v for _, v in corners),
                    max(u for u, _ in corners), max(v for _, v in corners))  # fmt: skip
        left, right = max(0, math.floor(unit.x0 * width)), min(width, math.ceil(unit.x1 * width))
        top, bottom = max(0, math.floor((1 - unit.y1) * height)), min(height, math.ceil((1 - unit.y0) * height))
        if left < right and top < bottom:
            boxes.append((left, top, right, bottom))
    return boxes


def _overwritten(
    pdf: pikepdf.Pdf, image: pikepdf.Stream, use: ImageUse, fill: tuple[float, float, float]
) -> pikepdf.Stream:
    """`image` with its pixels under `use`'s areas set to `fill`, and its mask's (a soft mask's or a stencil's:
    its shape there is the drawing's too) set to show them."""
    import pikepdf

    pil = _decoded(image)
    if pil is None:
        return _solid(pdf, fill)
    stencil = bool(image.get("/ImageMask", False))
    if stencil:
        decode = image.get("/Decode")
        inverted = isinstance(decode, pikepdf.Array) and len(decode) == 2 and float(decode[0]) == 1
        colour: Any = 0 if inverted else 1  # the sample value that does not paint
        pil = pil.convert("1")
    else:
        pil, colour = _paintable(eight_bit(pil), fill)  # a 16-bit image in 8 (Pillow's RGB of one is white)
    for box in _pixel_boxes(use, image):
        pil.paste(colour, box)
    stream = _encoded(pdf, image, pil, stencil)
    soft, hard = image.get("/SMask"), image.get("/Mask")
    if isinstance(soft, pikepdf.Stream):
        stream.SMask = _opaque_under(pdf, soft, use)
    if isinstance(hard, pikepdf.Stream):
        stream.Mask = _overwritten(pdf, hard, use, fill)  # a stencil: not painted there (the fill covers it)
    elif isinstance(hard, pikepdf.Array):
        stream.Mask = hard  # colour key ranges: no shape of their own
    return stream


def _decoded(image: pikepdf.Stream) -> Image.Image | None:
    """The image's pixels as Pillow gives them (a mask applied as alpha), or None when they cannot be decoded."""
    import pikepdf

    try:
        if int(image.get("/Width", 0)) * int(image.get("/Height", 0)) > MAX_IMAGE_PIXELS:
            raise ValueError("too many pixels to decode")
        return pikepdf.PdfImage(image).as_pil_image()
    except (pikepdf.PdfError, NotImplementedError, ValueError, OSError, TypeError, KeyError, ZeroDivisionError):
        return None


def _opaque_under(pdf: pikepdf.Pdf, mask: pikepdf.Stream, use: ImageUse) -> pikepdf.Stream:
    """A soft mask (its own grey image) opaque under `use`'s areas, its /Matte kept; one opaque pixel when it
    cannot be decoded (the whole image then shows)."""
    import pikepdf
    from PIL import Image

    pil = _decoded(mask)
    if pil is None:
        grey = Image.new("L", (1, 1), 255)
    else:
        grey = eight_bit(pil).convert("L")
        for box in _pixel_boxes(use, mask):
            grey.paste(255, box)
    stream = pdf.make_stream(zlib.compress(grey.tobytes()))
    stream.Filter = pikepdf.Name.FlateDecode
    stream.Type, stream.Subtype = pikepdf.Name.XObject, pikepdf.Name.Image
    stream.Width, stream.Height = grey.width, grey.height
    stream.ColorSpace, stream.BitsPerComponent = pikepdf.Name.DeviceGray, 8
    if "/Matte" in mask:
        stream.Matte = mask.Matte
    return stream


def _paintable(pil: Image.Image, fill: tuple[float, float, float]) -> tuple[Image.Image, Any]:
    red, green, blue = (round(channel * 255) for channel in fill)
    if pil.mode == "L":
        return pil, round(0.299 * red + 0.587 * green + 0.114 * blue)
    if pil.mode == "CMYK":
        black = 255 - max(red, green, blue)
        scale = 255 - black or 1
        cyan, magenta, yellow = ((255 - channel - black) * 255 // scale for channel in (red, green, blue))
        return pil, (cyan, magenta, yellow, black)
    return pil.convert("RGB"), (red, green, blue)


def _encoded(pdf: pikepdf.Pdf, original: pikepdf.Stream, pil: Image.Image, stencil: bool) -> pikepdf.Stream:
    import pikepdf

    was_jpeg = original.get("/Filter") == pikepdf.Name.DCTDecode
    space = {"L": pikepdf.Name.DeviceGray, "RGB": pikepdf.Name.DeviceRGB, "CMYK": pikepdf.Name.DeviceCMYK}
    if was_jpeg and pil.mode in ("L", "RGB"):
        out = io.BytesIO()
        pil.save(out, "JPEG", quality=JPEG_QUALITY)
        stream = pdf.make_stream(out.getvalue())
        stream.Filter = pikepdf.Name.DCTDecode
    else:
        stream = pdf.make_stream(zlib.compress(pil.tobytes()))
        stream.Filter = pikepdf.Name.FlateDecode
    stream.Type, stream.Subtype = pikepdf.Name.XObject, pikepdf.Name.Image
    stream.Width, stream.Height = pil.width, pil.height
    for key in _KEPT:
        if key in original and (stencil or key != "/Decode"):
            stream[key] = original[key]
    if stencil:
        stream.BitsPerComponent = 1
    else:
        stream.BitsPerComponent = 8
        stream.ColorSpace = _colour_space(original, pil.mode) or space[pil.mode]
    return stream


def _colour_space(original: pikepdf.Stream, mode: str) -> Any:
    """The original's ICC-based colour space when it still describes the pixels (same number of components)."""
    import pikepdf

    space = original.get("/ColorSpace")
    if isinstance(space, pikepdf.Array) and len(space) == 2 and space[0] == pikepdf.Name.ICCBased:
        components = int(space[1].get("/N", 0))
        if components == {"L": 1, "RGB": 3, "CMYK": 4}[mode]:
            return space
    return None


def _solid(pdf: pikepdf.Pdf, fill: tuple[float, float, float]) -> pikepdf.Stream:
    import pikepdf

    stream = pdf.make_stream(bytes(round(channel * 255) for channel in fill))
    stream.Type, stream.Subtype = pikepdf.Name.XObject, pikepdf.Name.Image
    stream.Width = stream.Height = 1
    stream.ColorSpace, stream.BitsPerComponent = pikepdf.Name.DeviceRGB, 8
    return stream
