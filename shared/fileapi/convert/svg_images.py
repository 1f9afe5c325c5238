"""Images embedded in an SVG as `data:` URIs, read from their headers (pixels are never decoded here).

resvg decodes a raster image (PNG, JPEG, GIF's first frame, WebP) each time it draws it, and
parses an SVG image (gzip-compressed or not) as a document of its own, whose own `data:` images
it reads in turn. Every raster image counts against the input pixel limit, and all the SVG images
of a document together inflate to at most MAX_INFLATED_BYTES.
"""

from __future__ import annotations

import base64
import binascii
import io
import zlib
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes

from fileapi.convert.image_io import MAX_INPUT_PIXELS, check_pixels
from fileapi.errors import TooLarge

MAX_INFLATED_BYTES = 16 * 1024 * 1024  # an SVGZ body, and all nested SVG images of one body together
_RESVG_DECODES = {"PNG", "JPEG", "GIF", "WEBP"}
_RASTER_TYPES = {"image/png", "image/jpeg", "image/jpg", "image/gif", "image/webp"}


@dataclass(frozen=True)
class Raster:
    width: int
    height: int
    encoded_bytes: int


@dataclass(frozen=True)
class NestedSvg:
    data: bytes  # inflated


class InflationBudget:
    """The bytes nested SVG images of one document may still inflate to."""

    def __init__(self, remaining: int = MAX_INFLATED_BYTES) -> None:
        self.remaining = remaining

    def inflate(self, data: bytes, *, what: str) -> bytes:
        """`data` inflated when it is gzip, charged against the budget.

        :raises TooLarge: past the budget.
        """
        if data.startswith(b"\x1f\x8b"):
            inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
            try:
                data = inflater.decompress(data, self.remaining + 1)
            except zlib.error:
                return b""
        if len(data) > self.remaining:
            raise TooLarge(
                f"{what} inflate to more than {MAX_INFLATED_BYTES:,} bytes in all; embed smaller or fewer SVG images"
            )
        self.remaining -= len(data)
        return data


def embedded_image(href: str, budget: InflationBudget) -> Raster | NestedSvg | None:
    """What resvg would draw for an `<image>`'s `href` (None: nothing, e.g. not a data: URI).

    :raises TooLarge: a raster image over the input pixel limit, or SVG images past the budget.
    """
    stripped = href.strip()
    if stripped[:5].lower() != "data:":
        return None
    header, comma, payload = stripped[5:].partition(",")
    if not comma:
        return None
    media_type, *parameters = header.split(";")
    try:
        if any(parameter.strip().lower() == "base64" for parameter in parameters):
            data = base64.b64decode("".join(payload.split()), validate=False)
        else:
            data = unquote_to_bytes(payload)
    except (binascii.Error, ValueError):
        return None
    media_type = media_type.strip().lower()
    if media_type == "image/svg+xml" or (media_type not in _RASTER_TYPES and _looks_like_svg(data)):
        return NestedSvg(budget.inflate(data, what="the SVG images embedded in the SVG"))
    return _raster(data)


def _looks_like_svg(data: bytes) -> bool:
    return data.startswith(b"\x1f\x8b") or b"<svg" in data[:4096]


def _raster(data: bytes) -> Raster | None:
    from PIL import Image, UnidentifiedImageError

    from fileapi.convert.image_io import load_pillow

    load_pillow()
    try:
        with Image.open(io.BytesIO(data)) as image:  # reads the header only
            size, kind = image.size, image.format
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        return None
    if kind not in _RESVG_DECODES:
        return None
    check_pixels(size, limit=MAX_INPUT_PIXELS, what="an image embedded in the SVG")
    return Raster(size[0], size[1], len(data))
