"""Reading QR codes and barcodes in an image (zxing-cpp).

Format names in results: qr_code, micro_qr_code, rmqr_code, ean13, ean8, upca, upce, code128,
code39, code93, codabar, itf, itf14, datamatrix, pdf417, aztec, and the other symbologies of
zxing-cpp in lower case without punctuation (e.g. databar). A UPC-A symbol (read by zxing-cpp as
EAN-13 with a leading 0) is reported as upca with its 12 digits, a UPC-E as upce with its 8 digits,
and an ITF symbol of 14 digits with a valid GS1 check digit as itf14.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fileapi.convert import deadline
from fileapi.convert.barcodes import MIN_ITF_DIGITS, gs1_check_digit, upca_to_upce
from fileapi.convert.image_io import open_image
from fileapi.convert.pixel_modes import rgb_or_grey
from fileapi.errors import InvalidInput

if TYPE_CHECKING:
    from PIL import Image


@dataclass(frozen=True)
class DecodedCode:
    text: str
    format: str


# A large image is searched downscaled first, where zxing-cpp is fast: its side is reduced (box
# average, an integer factor) to at most DOWNSCALED_MAX_SIDE. The full resolution is read only when
# the downscaled passes find nothing, and then once, without zxing-cpp's own rotations, inversion and
# downscaling (the downscaled passes tried those) and with its cheapest binarizer: a small code in a
# large image. On a 50 MP image this took 6.0 s and 322 MiB as one full-resolution pass with every option.
# A large PNG or JPEG is decoded by libvips in strips straight to grey (1 byte a pixel, where Pillow held 3 for
# RGB and 1 more for its grey copy), and the full-resolution pass reads that buffer in place: its peak is then the
# 50 MB of grey and zxing-cpp's own two bit matrices of a byte a pixel (DataMatrix and PDF417 each add the second).
DOWNSCALED_MAX_SIDE = 2_400
DOWNSCALED_MIN_PIXELS = 4_000_000  # smaller images are read at full resolution from the first pass


def read_qr(data: bytes) -> DecodedCode:
    """The first QR code (QR, Micro QR or rMQR) found in the image, as `read_codes` finds them.

    :raises InvalidInput: no QR code in the image.
    """
    codes = read_codes(data, qr_only=True)
    if not codes:
        raise InvalidInput("no QR code found in the image")
    return codes[0]


def read_barcodes(data: bytes) -> dict[str, list[DecodedCode]]:
    """{codes: every code found}, as `read_codes` finds them (none: an empty list)."""
    return {"codes": read_codes(data)}


def read_codes(data: bytes, *, qr_only: bool = False) -> list[DecodedCode]:
    """Every code zxing-cpp finds in the image (rotated, inverted and downscaled ones too);
    when a first pass finds nothing, it tries again on a sharpened, contrast-stretched and
    (for small images) enlarged copy. An image over DOWNSCALED_MIN_PIXELS is read downscaled
    first (both passes), then once at full resolution when they found nothing.

    :raises UnsupportedFormat / InvalidInput / TooLarge: as for any image input.
    """
    import zxingcpp

    grey = _large_grey_with_vips(data)
    if grey is not None:
        image = grey.image
    else:
        image = rgb_or_grey(open_image(data, grey=True))
        if image.mode != "L":
            image = image.convert("L")
    formats: Any = (
        [zxingcpp.BarcodeFormat.QRCode, zxingcpp.BarcodeFormat.MicroQRCode, zxingcpp.BarcodeFormat.RMQRCode]
        if qr_only
        else zxingcpp.BarcodeFormat.All
    )
    every_option = {"try_rotate": True, "try_downscale": True, "try_invert": True}
    large = image.width * image.height > DOWNSCALED_MIN_PIXELS
    first = _downscaled(image) if large else image
    for attempt in _attempts(first, enlarge=not large):
        codes = _read(attempt, formats, every_option)
        if codes:
            return codes
    if first is image:
        return []
    # Only the grey bytes stay for the full-resolution pass (zxing-cpp reads them in place).
    width, height = image.size
    pixels = grey.pixels if grey is not None else memoryview(image.tobytes())
    del image, first, attempt, grey
    full_resolution = {"try_rotate": False, "try_downscale": False, "try_invert": False}
    view = pixels.cast("B", (height, width))
    return _read(view, formats, {**full_resolution, "binarizer": zxingcpp.Binarizer.FixedThreshold})


@dataclass(frozen=True)
class _Grey:
    image: Image.Image  # mode L over `pixels`, not a copy
    pixels: memoryview  # the grey bytes, row by row


# Pillow's RGB to L weights (ITU-R 601-2 luma, Convert.c's L24 in 1/65536): libvips's grey is Pillow's, +-1.
_LUMA = [19_595 / 65_536, 38_470 / 65_536, 7_471 / 65_536]


def _large_grey_with_vips(data: bytes) -> _Grey | None:
    """The grey pixels of an image over DOWNSCALED_MIN_PIXELS that libvips reads (fileapi.convert.image_vips:
    a PNG or JPEG of 8-bit pixels shown as stored, checked as open_image checks it), decoded in strips straight to
    grey: 1 byte a pixel held, where Pillow holds 3 for the RGB and 1 for its grey copy. None for anything else
    (open_image reads it, and words its errors).

    :raises TooLarge: as open_image.
    """
    from fileapi.convert.image_vips import open_with_vips

    image = open_with_vips(data)
    if image is None or image.width * image.height <= DOWNSCALED_MIN_PIXELS:
        return None
    import pyvips

    if image.bands >= 3:  # sRGB, alpha ignored as Pillow's convert("L") ignores it
        image = (image.extract_band(0, n=3).recomb([_LUMA]) + 0.5).cast("uchar")
    else:
        image = image.extract_band(0)
    try:
        pixels = memoryview(image.write_to_memory())
    except pyvips.Error:  # damaged pixel data
        return None
    from PIL import Image

    # Pillow maps any buffer; its stubs name only bytes, bytearray and array-interface objects.
    return _Grey(Image.frombuffer("L", (image.width, image.height), pixels, "raw", "L", 0, 1), pixels)  # type: ignore[arg-type]


def _downscaled(image: Image.Image) -> Image.Image:
    factor = -(-max(image.size) // DOWNSCALED_MAX_SIDE)
    return image.reduce(factor) if factor > 1 else image


def _attempts(image: Image.Image, *, enlarge: bool) -> Iterator[Image.Image]:
    """The image, then a sharpened and contrast-stretched copy (and that enlarged 2x when small)."""
    from PIL import ImageFilter, ImageOps

    yield image
    retry = ImageOps.autocontrast(image.filter(ImageFilter.SHARPEN), cutoff=1)
    yield retry
    if enlarge and max(image.size) < 1000:
        yield retry.resize((image.width * 2, image.height * 2))


def _read(image: Image.Image | memoryview, formats: Any, options: dict[str, Any]) -> list[DecodedCode]:
    import zxingcpp

    deadline.check()
    # The text as encoded: zxing-cpp's default (HRI) writes control characters as symbols or names ("\x1d" as
    # "<GS>" or "␝"), which breaks GS1 and ISO 15434 (UDI) data.
    found = zxingcpp.read_barcodes(image, formats=formats, text_mode=zxingcpp.TextMode.Plain, **options)
    return _unique([_decoded(result) for result in found if result.valid and not _implausible(result)])


def _implausible(result: Any) -> bool:
    name = result.format.name if hasattr(result.format, "name") else str(result.format)
    return name == "ITF" and len(result.text) < MIN_ITF_DIGITS


def _unique(codes: list[DecodedCode]) -> list[DecodedCode]:
    seen: set[tuple[str, str]] = set()
    result = []
    for code in codes:
        if (code.text, code.format) not in seen:
            seen.add((code.text, code.format))
            result.append(code)
    return result


def _decoded(result: Any) -> DecodedCode:
    name = result.format.name if hasattr(result.format, "name") else str(result.format)
    text: str = result.text
    if name == "EAN13" and len(text) == 13 and text.startswith("0"):
        return DecodedCode(text[1:], "upca")
    if name == "UPCE":
        upca = text[-12:]
        return DecodedCode(upca_to_upce(upca) or upca, "upce")
    if name == "ITF" and len(text) == 14 and gs1_check_digit(text[:-1]) == text[-1]:
        return DecodedCode(text, "itf14")
    names = {"QRCode": "qr_code", "MicroQRCode": "micro_qr_code", "RMQRCode": "rmqr_code"}
    return DecodedCode(text, names.get(name, re.sub(r"[^a-z0-9]", "", name.lower())))
