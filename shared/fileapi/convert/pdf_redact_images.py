"""Overwriting an image XObject's pixels under redaction areas.

Each area is mapped back through the image's placement (its CTM) to the pixels it covers (the bounding box of
that parallelogram, so a turned image loses a little more, never less). The image is decoded, those pixels
set to the fill colour (a stencil mask's to unpainted), and written as a new image: JPEG again when it was
one (quality 92), otherwise Flate; the page then uses the new image, so another page drawing the original
is not changed. An image that cannot be decoded is replaced by one pixel of the fill colour (removed whole).
"""

from __future__ import annotations

import io
import math
import zlib
from typing import TYPE_CHECKING, Any

from fileapi.convert import deadline
from fileapi.convert.pdf_redact_areas import Rect, apply, invert
from fileapi.convert.pdf_redact_content import ImageUse

if TYPE_CHECKING:
    import pikepdf
    from PIL import Image

JPEG_QUALITY = 92
MAX_IMAGE_PIXELS = 50_000_000  # decoded to overwrite: as for any image the API reads (image_io.MAX_INPUT_PIXELS)
_KEPT = ("/SMask", "/Interpolate", "/Intent", "/Decode", "/ImageMask")


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
        boxes = _pixel_boxes(use, int(image.get("/Width", 0)), int(image.get("/Height", 0)))
        if not boxes:
            continue
        xobjects[use.name] = _overwritten(pdf, image, boxes, fill)
        changed += 1
    return changed


def _pixel_boxes(use: ImageUse, width: int, height: int) -> list[tuple[int, int, int, int]]:
    """The pixel rectangles (left, top, right, bottom) of `use`'s areas on an image of width x height."""
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
    pdf: pikepdf.Pdf, image: pikepdf.Stream, boxes: list[tuple[int, int, int, int]], fill: tuple[float, float, float]
) -> pikepdf.Stream:
    import pikepdf

    try:
        if int(image.get("/Width", 0)) * int(image.get("/Height", 0)) > MAX_IMAGE_PIXELS:
            raise ValueError("too many pixels to decode")
        pil = pikepdf.PdfImage(image).as_pil_image()
    except (pikepdf.PdfError, NotImplementedError, ValueError, OSError, TypeError, KeyError, ZeroDivisionError):
        return _solid(pdf, fill)
    stencil = bool(image.get("/ImageMask", False))
    if stencil:
        decode = image.get("/Decode")
        inverted = isinstance(decode, pikepdf.Array) and len(decode) == 2 and float(decode[0]) == 1
        colour: Any = 0 if inverted else 1  # the sample value that does not paint
        pil = pil.convert("1")
    else:
        pil, colour = _paintable(pil, fill)
    for box in boxes:
        pil.paste(colour, box)
    return _encoded(pdf, image, pil, stencil)


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
