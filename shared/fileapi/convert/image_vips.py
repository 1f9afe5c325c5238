"""Big still images through libvips (pyvips with the pyvips-binary wheel): a PNG or JPEG file to WebP or JPEG
read in strips as the encoder consumes them, decoding and encoding overlapped on libvips's threads.

Only where the result is the one the Pillow path gives: 8-bit sRGB or grey pixels shown as stored (EXIF
orientation 1), written at the same quality and settings with only the ICC profile kept (alpha flattened onto
white for JPEG). Anything else (16-bit, CMYK, rotated, animated, other formats, a target score, a response
limit) is left to fileapi.convert.image, and so is any file libvips cannot read (its error is worded there),
and everything where libvips is not installed. `open_with_vips` (the checks and the sequential reader) serves
code reading's grey decode too (fileapi.convert.code_reading).
"""

from __future__ import annotations

import functools
import types
from pathlib import Path
from typing import TYPE_CHECKING

from fileapi.convert import payload
from fileapi.convert.image_decode import head
from fileapi.convert.image_io import (
    DEFAULT_QUALITY,
    MAX_INPUT_PIXELS,
    ImageFormat,
    check_output_size,
    check_pixels,
)
from fileapi.convert.jpeg_scans import check_scans

if TYPE_CHECKING:
    import pyvips

    from fileapi.convert.image_decode import Source

VIPS_OUTPUTS = frozenset({ImageFormat.WEBP, ImageFormat.JPEG})
_SIGNATURES = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff")
_INTERPRETATIONS = frozenset({"srgb", "b-w"})
PROGRESSIVE_ABOVE_PIXELS = 10_000  # as image_io.save_options writes JPEG
WEBP_EFFORT = 4  # libwebp's method, as image_io.save_options


@functools.cache
def installed_vips() -> types.ModuleType | None:
    """pyvips, with libvips's operation cache off (nothing of a request is kept between conversions); None in a
    build without libvips (the pyvips-binary wheel), where the callers fall back to Pillow or say so."""
    try:
        import pyvips
    except (ImportError, OSError):
        return None
    pyvips.cache_set_max(0)
    module: types.ModuleType = pyvips
    return module


def convert_with_vips(source: Path, out: Path, *, to: ImageFormat, quality: int | None) -> bool:
    """Write `source` (a PNG or JPEG file) as `to` into `out` when libvips gives the Pillow path's result;
    False (nothing written) when it does not apply.

    :param quality: 1..100 (None: the format's default).
    :raises TooLarge: more than 50 megapixels in, over the output bounds, or a JPEG whose scans would take too
        long to decode (fileapi.convert.jpeg_scans).
    """
    if to not in VIPS_OUTPUTS or payload.limit() is not None:
        return False
    image = open_with_vips(source)
    if image is None:
        return False
    import pyvips

    check_output_size(image.width, image.height)
    if to is ImageFormat.JPEG and image.hasalpha():
        image = image.flatten(background=[255] * (image.bands - 1))
    q = quality if quality is not None else DEFAULT_QUALITY[to]
    try:
        if to is ImageFormat.WEBP:
            image.webpsave(str(out), Q=q, effort=WEBP_EFFORT, keep="icc")
        else:
            progressive = image.width * image.height > PROGRESSIVE_ABOVE_PIXELS
            image.jpegsave(str(out), Q=q, optimize_coding=True, interlace=progressive, keep="icc")
    except pyvips.Error:
        out.unlink(missing_ok=True)
        return False
    return True


def open_with_vips(source: Source) -> pyvips.Image | None:
    """`source` (bytes or a file) opened by libvips for one sequential read, when it is a PNG or JPEG of 8-bit sRGB
    or grey pixels shown as stored (EXIF orientation 1, one frame), after the checks `image_io.open_image` makes
    of its header; None (nothing decoded) for anything else, a file libvips cannot read, or where libvips is not
    installed.

    :raises TooLarge: more than 50 megapixels, or a JPEG whose scans would take too long to decode
        (fileapi.convert.jpeg_scans).
    """
    start = head(source, 8)
    if not start.startswith(_SIGNATURES):
        return None
    pyvips = installed_vips()
    if pyvips is None:  # a build without libvips converts through Pillow
        return None
    try:
        if isinstance(source, Path):
            image = pyvips.Image.new_from_file(str(source), access="sequential", fail=True)
        else:
            image = pyvips.Image.new_from_buffer(source, "", access="sequential", fail=True)
    except pyvips.Error:
        return None
    if image.format != "uchar" or image.interpretation not in _INTERPRETATIONS or _orientation(image) != 1:
        return None
    if start.startswith(b"\x89PNG") and image.get_typeof("n-pages") and image.get("n-pages") > 1:
        return None  # an animated PNG: the Pillow path decides what to do with it
    check_pixels((image.width, image.height), limit=MAX_INPUT_PIXELS, what="the image")
    if start.startswith(b"\xff\xd8"):
        check_scans(source, (image.width, image.height))  # as open_image refuses a progressive JPEG's scan bomb
    return image


def _orientation(image: object) -> int:
    import pyvips

    assert isinstance(image, pyvips.Image)
    return int(image.get("orientation")) if image.get_typeof("orientation") else 1
