"""Decoding and encoding images with bounds: formats, pixel limits, orientation, alpha, colour.

Inputs: JPEG, PNG, WebP, AVIF, HEIC/HEIF (pillow-heif), JPEG XL (pillow-jxl-plugin, libjxl), GIF, BMP,
TIFF, detected from the bytes. Outputs: jpeg, png, webp, avif, jxl. Default qualities: JPEG 85, WebP 80
(libwebp method 4, as cwebp), AVIF 60, JPEG XL 90 (libjxl's distance 1.0, at effort JXL_EFFORT); PNG is
lossless (quality does not apply; it is written with optimize).

AVIF is encoded at libaom speed 9 (AVIF_SPEED) with libavif's other defaults: 2.4-3.8x less time than
speed 8 for files 2-6% larger at an equal butteraugli distance (the measurements behind each setting:
docs/architecture.md, "Encoder settings").
"""

from __future__ import annotations

import io
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from fileapi.convert import payload
from fileapi.convert.pixel_modes import rgb_or_grey
from fileapi.errors import ConversionFailed, InvalidInput, TooLarge, UnsupportedFormat

if TYPE_CHECKING:
    from PIL import Image

    from fileapi.convert.image_decode import Source

MAX_INPUT_PIXELS = 50_000_000
MAX_OUTPUT_PIXELS = 50_000_000
MAX_OUTPUT_SIDE = 16_383  # WebP's limit; the same bound for every output format
INPUT_FORMATS = {"JPEG", "PNG", "WEBP", "AVIF", "HEIF", "JXL", "GIF", "BMP", "TIFF", "MPO"}


class ImageFormat(StrEnum):
    """Output formats."""

    JPEG = "jpeg"
    PNG = "png"
    WEBP = "webp"
    AVIF = "avif"
    JXL = "jxl"

    @property
    def media_type(self) -> str:
        return f"image/{self.value}"

    @property
    def has_alpha(self) -> bool:
        return self is not ImageFormat.JPEG


AVIF_SPEED = 9
JXL_EFFORT = 3  # libjxl's effort 1..9 (default 7); see docs/architecture.md, "Encoder settings"
DEFAULT_QUALITY = {
    ImageFormat.JPEG: 85,
    ImageFormat.WEBP: 80,
    ImageFormat.AVIF: 60,
    ImageFormat.JXL: 90,
    ImageFormat.PNG: 100,
}
_PIL_NAMES = {format: format.name for format in ImageFormat}
_BY_PIL_NAME = {format.name: format for format in ImageFormat} | {"MPO": ImageFormat.JPEG}

_registered = False


def load_pillow() -> None:
    """Import Pillow and register HEIF once; decompression bombs are ours to refuse."""
    global _registered
    if not _registered:
        import pillow_heif
        import pillow_jxl  # noqa: F401 - registers the JXL plugin with Pillow
        from PIL import Image

        pillow_heif.register_heif_opener()
        Image.MAX_IMAGE_PIXELS = None  # checked in open_image, with our own error
        _registered = True


def parse_format(name: str) -> ImageFormat:
    """The output format called `name` (case-insensitive; 'jpg' is jpeg).

    :raises UnsupportedFormat: not one of jpeg, png, webp, avif, jxl.
    """
    key = name.strip().lower()
    key = "jpeg" if key == "jpg" else key
    try:
        return ImageFormat(key)
    except ValueError:
        raise UnsupportedFormat(f"output format must be jpeg, png, webp, avif or jxl, not {name!r}") from None


def open_image(
    data: Source, *, shrink_to: tuple[int | None, int | None] | None = None, grey: bool = False
) -> Image.Image:
    """Open and decode `data` (bytes, or a file read on demand) as it is meant to be shown (see `image_decode`):
    first frame, clean aperture, EXIF orientation applied, HDR tone-mapped, CMYK converted to RGB.

    :param shrink_to: the (width, height) in displayed pixels the caller will resize to (either may be
        None): a JPEG decoder then scales down by 1/2, 1/4 or 1/8 while decoding when the target is at
        least that much smaller.
    :param grey: the caller reads only grey pixels: a colour JPEG is then decoded straight to grey (mode L, the
        luma libjpeg decodes before colour, within 2 of converting the RGB), a third of its memory.
    :raises UnsupportedFormat: not an image, a format other than the accepted inputs, or a feature of
        one that no decoder here reads.
    :raises TooLarge: more than 50 megapixels, or a JPEG whose scans would take too long (`jpeg_scans`).
    :raises InvalidInput: truncated or corrupt (saying what is wrong).
    """
    from fileapi.convert.image_decode import EMPTY_IMAGE, decode, head, identify
    from fileapi.convert.jpeg_scans import check_scans
    from fileapi.convert.jxl import is_jxl, jxl_size

    load_pillow()
    start = head(data, 30)
    if not start:
        raise InvalidInput(EMPTY_IMAGE)
    _check_webp_canvas(start)
    if is_jxl(start):  # its plugin decodes on opening: the size is checked from the header first
        check_pixels(
            jxl_size(data.read_bytes() if isinstance(data, Path) else data), limit=MAX_INPUT_PIXELS, what="the image"
        )
    image = identify(data)
    if image.format not in INPUT_FORMATS:
        raise UnsupportedFormat(f"{image.format} images are not supported as input")
    check_pixels(image.size, limit=MAX_INPUT_PIXELS, what="the image")
    if image.format in ("JPEG", "MPO"):
        check_scans(data, image.size)
    if shrink_to is not None and image.format in ("JPEG", "MPO") and image.mode != "CMYK":
        _draft(image, shrink_to)
    if grey and image.format in ("JPEG", "MPO"):
        image.draft("L", None)  # a no-op for CMYK and grey JPEGs, and after _draft
    return _to_rgb_if_cmyk(decode(data, image))


def _check_webp_canvas(data: bytes) -> None:
    """An extended WebP's canvas size, read from its VP8X header (in the first 30 bytes) before libwebp sees the
    file (libwebp refuses a canvas larger than its frame as corrupt; a canvas past the limit is too large
    first)."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP" and data[12:16] == b"VP8X" and len(data) >= 30:
        width = 1 + int.from_bytes(data[24:27], "little")
        height = 1 + int.from_bytes(data[27:30], "little")
        check_pixels((width, height), limit=MAX_INPUT_PIXELS, what="the image")


def _draft(image: Image.Image, shrink_to: tuple[int | None, int | None]) -> None:
    """Let the JPEG decoder reduce by DCT scaling when the target is half the size or less."""
    width, height = shrink_to
    if image.getexif().get(0x0112, 1) in (5, 6, 7, 8):  # stored sideways: the target turns too
        width, height = height, width
    source_w, source_h = image.size
    scale = max((width or 0) / source_w, (height or 0) / source_h)
    if 0 < scale <= 0.5:
        image.draft("RGB", (max(1, round(source_w * scale)), max(1, round(source_h * scale))))


def _to_rgb_if_cmyk(image: Image.Image) -> Image.Image:
    """CMYK pixels to RGB, through the embedded ICC profile when there is one (else naively)."""
    if image.mode != "CMYK":
        return image
    from PIL import ImageCms

    profile = image.info.get("icc_profile")
    if isinstance(profile, bytes):
        try:
            source = ImageCms.ImageCmsProfile(io.BytesIO(profile))
            converted = ImageCms.profileToProfile(image, source, ImageCms.createProfile("sRGB"), outputMode="RGB")
        except (ImageCms.PyCMSError, OSError):
            converted = None
        if converted is not None:
            converted.info.pop("icc_profile", None)
            converted.format = image.format
            return converted
    rgb = image.convert("RGB")
    rgb.info.pop("icc_profile", None)  # the CMYK profile does not describe RGB pixels
    rgb.format = image.format
    return rgb


def check_pixels(size: tuple[int, int], *, limit: int, what: str) -> None:
    """Refuse sizes above `limit` pixels (or a side above the output bound for outputs).

    :raises TooLarge: the message gives the size and the limit.
    """
    width, height = size
    if width * height > limit:
        raise TooLarge(f"{what} is {width}x{height} = {width * height:,} pixels, over the limit of {limit:,} pixels")


def check_output_size(width: int, height: int) -> None:
    """Bounds of any output image: each side <= 16383 px and at most 50 megapixels."""
    if width > MAX_OUTPUT_SIDE or height > MAX_OUTPUT_SIDE:
        raise TooLarge(f"the result would be {width}x{height}; each side can be at most {MAX_OUTPUT_SIDE} pixels")
    check_pixels((width, height), limit=MAX_OUTPUT_PIXELS, what="the result")


def source_format(image: Image.Image) -> ImageFormat | None:
    """The output format matching the input's, when it is one of the five."""
    return _BY_PIL_NAME.get(image.format or "")


def encode(
    image: Image.Image,
    fmt: ImageFormat,
    *,
    quality: int | None = None,
    icc_profile: bytes | None = None,
    palette_colors: int | None = None,
) -> bytes:
    """Encode `image` as `fmt` (no EXIF or XMP is written; the ICC profile is kept).

    Under a response limit (`payload`), a result that cannot fit is refused before encoding when a
    sample of its rows predicts so, and after encoding otherwise, naming an option that would fit.

    :param quality: 1..100 (None: the format's default); not used by PNG.
    :param palette_colors: for PNG, quantise to this many colours (2..256) instead of lossless.
    :raises TooLarge: over the output bounds, or a result over the response limit.
    """
    from PIL import Image

    check_output_size(*image.size)
    image, icc_profile = prepare_for(image, fmt, icc_profile)
    if palette_colors is not None:
        if image.mode not in ("RGB", "RGBA"):  # libimagequant's fast octree takes these only: LA was a 500
            image = image.convert("RGBA" if "A" in image.getbands() else "RGB")
        image = image.quantize(colors=palette_colors, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    options = save_options(image, fmt, quality, icc_profile)
    max_bytes = payload.limit()
    if max_bytes is not None and payload.payload_bytes(_upper_bound(image)) > max_bytes:
        predicted = _predicted_size(image, fmt, options)
        if payload.payload_bytes(predicted) > max_bytes * _REFUSE_ABOVE:
            hint = _smaller_option(image, fmt, predicted)
            raise payload.too_large(f"the {fmt.value.upper()} image", predicted, hint=hint)
    data = save_image(image, fmt, options)
    check_encoded(image, fmt, data)
    return data


def check_encoded(image: Image.Image, fmt: ImageFormat, data: bytes) -> None:
    """Refuse `data` (`image` encoded as `fmt`) over the response limit, naming an option that would fit.

    :raises TooLarge: over the limit.
    """
    payload.check(f"the {fmt.value.upper()} image", len(data), hint=_smaller_option(image, fmt, len(data)))


# A prediction above the limit by this factor is refused before encoding; closer calls are encoded
# and checked (the prediction's error on the corpus photos was within 10%).
_REFUSE_ABOVE = 1.1
_SAMPLE_STRIPS = 8
_STRIP_ROWS = 16
_PNG_FAST_ABOVE_PIXELS = 2_000_000


def save_options(image: Image.Image, fmt: ImageFormat, quality: int | None, icc: bytes | None) -> dict[str, object]:
    options: dict[str, object] = {}
    if icc and image.mode in ("RGB", "RGBA", "L", "LA", "P"):
        options["icc_profile"] = icc
    q = quality if quality is not None else DEFAULT_QUALITY[fmt]
    if fmt is ImageFormat.JPEG:
        options.update(quality=q, optimize=True, progressive=image.width * image.height > 10_000)
    elif fmt is ImageFormat.WEBP:
        options.update(quality=q, method=4)
    elif fmt is ImageFormat.AVIF:
        options.update(quality=q, speed=AVIF_SPEED)
    elif fmt is ImageFormat.JXL:
        # libjxl's quality 100 is distance 0, which only its lossless mode takes.
        options.update(quality=q, effort=JXL_EFFORT, lossless=q == 100)
    elif image.width * image.height > _PNG_FAST_ABOVE_PIXELS:
        # optimize (zlib level 9 and every filter) took 28 s on a 8.5 MP photo here, level 6 4 s,
        # for a file 7% smaller: large images are written at zlib's default level.
        options.update(compress_level=6)
    else:
        options.update(optimize=True)
    return options


def save_image(image: Image.Image, fmt: ImageFormat, options: dict[str, object]) -> bytes:
    if fmt in (ImageFormat.AVIF, ImageFormat.WEBP):  # their encoders' working memory is kept (memory_reuse)
        from fileapi.convert.memory_reuse import keep_freed_memory

        keep_freed_memory()
    out = io.BytesIO()
    try:
        if fmt is ImageFormat.JXL:
            return _save_jxl(image, options)
        image.save(out, format=_PIL_NAMES[fmt], **options)
    except (OSError, ValueError, RuntimeError) as exc:  # RuntimeError: the JPEG XL plugin's
        from fileapi.convert.image_decode import describe

        raise ConversionFailed(f"the image could not be encoded as {fmt.value}: {describe(exc)}") from None
    return out.getvalue()


def _save_jxl(image: Image.Image, options: dict[str, object]) -> bytes:
    """JPEG XL through libjxl's encoder with save_options' quality, effort and lossless (no metadata written)."""
    from fileapi.convert.jxl import encode_pixels

    quality, effort = options["quality"], options["effort"]
    if not isinstance(quality, int | float) or not isinstance(effort, int):
        raise ValueError(f"JPEG XL quality and effort must be numbers, not {quality!r} and {effort!r}")
    return encode_pixels(image, quality=quality, effort=effort, lossless=bool(options.get("lossless")))


def _upper_bound(image: Image.Image) -> int:
    """No encoding here is larger than the raw pixels plus a little."""
    return image.width * image.height * len(image.getbands()) + 65_536


def _predicted_size(image: Image.Image, fmt: ImageFormat, options: dict[str, object]) -> int:
    """The encoded size of `image`, from encoding strips of full-resolution rows spread over it."""
    from PIL import Image

    rows = min(image.height, _SAMPLE_STRIPS * _STRIP_ROWS)
    sample = Image.new(image.mode, (image.width, rows))
    step = max(_STRIP_ROWS, image.height // _SAMPLE_STRIPS)
    for strip in range(rows // _STRIP_ROWS):
        top = min(strip * step, image.height - _STRIP_ROWS)
        sample.paste(image.crop((0, top, image.width, top + _STRIP_ROWS)), (0, strip * _STRIP_ROWS))
    if image.mode == "P":
        sample.putpalette(image.getpalette() or [])
    sampled = len(save_image(sample, fmt, {k: v for k, v in options.items() if k != "icc_profile"}))
    return round(sampled * image.height / rows)


def _smaller_option(image: Image.Image, fmt: ImageFormat, size: int) -> str:
    """What would fit: a width for the same format and, for PNG, a lossy format."""
    max_bytes = payload.limit() or 1
    fits = max_bytes * 3 / 4 * 0.9  # raw bytes that fit once base64-encoded, with a margin
    width = max(1, int(image.width * min(1.0, (fits / max(size, 1)) ** 0.5)))
    options = [f"a width of at most {width:,} px"]
    if fmt is ImageFormat.PNG:
        jpeg = _predicted_size(image.convert("RGB"), ImageFormat.JPEG, {"quality": DEFAULT_QUALITY[ImageFormat.JPEG]})
        if jpeg < fits:
            options.insert(0, f"JPEG or WebP output (JPEG about {jpeg / 1e6:.1f} MB)")
    else:
        options.append("a lower quality")
    return "a smaller result would fit: " + " or ".join(options)


def prepare_for(image: Image.Image, fmt: ImageFormat, icc: bytes | None) -> tuple[Image.Image, bytes | None]:
    """(pixels, ICC profile) as `fmt`'s encoder takes them (see prepare_mode). JPEG XL is written as sRGB
    (the plugin embeds no ICC profile): pixels with a profile are converted to sRGB through it."""
    image = prepare_mode(image, fmt)
    if fmt is not ImageFormat.JXL or not icc:
        return image, icc
    from PIL import ImageCms

    try:
        source = ImageCms.ImageCmsProfile(io.BytesIO(icc))
        converted = ImageCms.profileToProfile(image, source, ImageCms.createProfile("sRGB"), outputMode=image.mode)
    except (ImageCms.PyCMSError, OSError):
        return image, None  # a profile that cannot be read: the pixels are taken as sRGB
    if converted is None:
        return image, None
    converted.info.pop("icc_profile", None)
    return converted, None


def prepare_mode(image: Image.Image, fmt: ImageFormat) -> Image.Image:
    """Modes each encoder takes: 16-bit to 8-bit, CMYK to RGB, alpha flattened on white for JPEG."""
    from PIL import Image

    image = rgb_or_grey(image)
    if image.mode == "P":
        image = image.convert("RGBA" if "transparency" in image.info else "RGB")
    has_alpha = image.mode in ("RGBA", "LA", "PA", "RGBa", "La")
    if not fmt.has_alpha:
        if has_alpha:
            background = Image.new("RGB", image.size, (255, 255, 255))
            background.paste(image.convert("RGBA"), mask=image.convert("RGBA").getchannel("A"))
            return background
        return image if image.mode in ("RGB", "L") else image.convert("RGB")
    if image.mode not in ("RGB", "RGBA", "L", "LA") or (fmt is not ImageFormat.PNG and image.mode in ("L", "LA")):
        return image.convert("RGBA" if has_alpha else "RGB")
    return image


def icc_of(image: Image.Image) -> bytes | None:
    """The ICC profile to carry into the output (CMYK inputs were converted to sRGB: none)."""
    profile = image.info.get("icc_profile")
    return profile if isinstance(profile, bytes) and image.mode != "CMYK" else None
