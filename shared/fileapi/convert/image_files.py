"""Image conversion from a file to a file, for operations: memory bounded by pixels, not bytes.

Pillow opens the file lazily (the header only) and decodes it from disk; the raster is the only large
thing held, and it is bounded by the synchronous pixel limits (50 megapixels in and out): a 100 MB PNG
is converted in the memory its pixels take, whatever its size on disk. An animated input converts its
first frame here (the synchronous endpoint keeps animations, within the same pixel limits).
"""

from __future__ import annotations

from pathlib import Path

from fileapi.convert.image_io import (
    INPUT_FORMATS,
    MAX_INPUT_PIXELS,
    ImageFormat,
    _prepare_mode,
    check_output_size,
    check_pixels,
    icc_of,
    load_pillow,
    save_options,
)
from fileapi.errors import ConversionFailed, InvalidInput, UnsupportedFormat

_PIL_NAMES = {ImageFormat.JPEG: "JPEG", ImageFormat.PNG: "PNG", ImageFormat.WEBP: "WEBP", ImageFormat.AVIF: "AVIF"}


def convert_image_file(source: Path, out: Path, *, to: ImageFormat, quality: int | None = None) -> None:
    """Re-encode the image at `source` as `to` into `out`: EXIF orientation applied, alpha flattened onto
    white for JPEG, the ICC profile kept, no EXIF or XMP written.

    :param quality: 1..100 (None: the format's default); not used by PNG.
    :raises UnsupportedFormat: not an image of an accepted input format.
    :raises TooLarge: more than 50 megapixels in, or over the output bounds.
    :raises InvalidInput: truncated or corrupt, or a quality out of range.
    """
    from PIL import Image, ImageOps, UnidentifiedImageError

    if quality is not None and not 1 <= quality <= 100:
        raise InvalidInput(f"quality must be 1..100, not {quality}")
    load_pillow()
    try:
        image = Image.open(source)
    except UnidentifiedImageError:
        raise UnsupportedFormat("the file is not an image of a supported format") from None
    with image:
        if image.format not in INPUT_FORMATS:
            raise UnsupportedFormat(f"{image.format} images are not supported as input")
        check_pixels(image.size, limit=MAX_INPUT_PIXELS, what="the image")
        icc = icc_of(image)
        try:
            image.load()
            shown = ImageOps.exif_transpose(image)
        except (OSError, ValueError, SyntaxError) as exc:
            raise InvalidInput(f"the {image.format} image is truncated or corrupt ({type(exc).__name__})") from None
        if shown.mode == "CMYK":
            shown, icc = shown.convert("RGB"), None
        check_output_size(*shown.size)
        prepared = _prepare_mode(shown, to)
        try:
            prepared.save(out, format=_PIL_NAMES[to], **save_options(prepared, to, quality, icc))
        except (OSError, ValueError) as exc:
            raise ConversionFailed(f"the image could not be encoded as {to.value}: {type(exc).__name__}") from None
