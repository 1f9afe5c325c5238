"""Reading an image file as it is meant to be shown, with a second decoder where the first fails.

Pillow reads JPEG, PNG, WebP, GIF, BMP and TIFF; JPEG XL through pillow-jxl-plugin (libjxl); AVIF
through its AVIF plugin (libavif) and HEIC/HEIF through pillow-heif (libheif). The last two both claim
ISO-BMFF files (brand `mif1` is either), so when one cannot decode a file the other is tried before the
answer is 400 (see `fallbacks`).

On top of the pixels: the clean aperture (`clap`) of an AVIF is applied (libavif leaves it to the
caller; `irot`/`imir` arrive as the EXIF orientation); PQ and HLG (HDR) pixels are tone-mapped to
SDR, per channel; animated files give their first frame. Failures are worded by what is wrong with
the file, never with a library's own text.

An image comes as bytes (a request's body) or as a file (an operation's input): Pillow reads a file on
demand, so the pixels, bounded by the limits, are the only large thing held, whatever the file's size.
"""

from __future__ import annotations

import io
import math
import re
import struct
from pathlib import Path
from typing import IO, TYPE_CHECKING

from fileapi.convert import fallbacks
from fileapi.convert.bmff import TRANSFER_HLG, TRANSFER_PQ, read_primary_image
from fileapi.errors import ApiError, InvalidInput, UnsupportedFormat

if TYPE_CHECKING:
    from PIL import Image

    from fileapi.convert.detect import FileType

SUPPORTED = "JPEG, PNG, WebP, AVIF, HEIC, JPEG XL, GIF, BMP, TIFF"
EMPTY_IMAGE = "the body is empty: send the image's bytes"
# An image: a request's bytes, or an operation's file.
Source = bytes | Path
# Exceptions Pillow and its plugins raise on bad data (pure-Python plugins included).
DECODE_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    ValueError,
    SyntaxError,
    EOFError,
    RuntimeError,
    IndexError,
    KeyError,
    TypeError,
    ZeroDivisionError,
    MemoryError,
    OverflowError,
    struct.error,
)
_OPEN_ERRORS: tuple[type[BaseException], ...] = (*DECODE_ERRORS, ImportError)
# Known library messages, in our words: (pattern, what is wrong with the file).
_PROBLEMS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), text)
    for pattern, text in (
        (r"truncated|premature end|unexpected end|not enough data|short|eof|unpack|buffer", "it ends too early"),
        (r"broken data stream|decompress|zlib|inflate|huffman|corrupt", "its compressed pixel data is corrupt"),
        (r"crc|checksum", "a chunk's checksum is wrong"),
        (r"BMFF parsing failed|Invalid ftyp|box", "its ISO-BMFF boxes (the AVIF/HEIF container) are malformed"),
        (r"grid", "its image grid is invalid"),
        (r"tone mapped|gain ?map", "its gain map (tone-mapped image item) is invalid"),
        (r"alpha", "its alpha (transparency) image is invalid"),
        (r"palette|colormap", "its palette is invalid"),
        (r"size|dimension|width|height|ispe", "its stated image size is invalid"),
        (r"no .*frame|frame", "it holds no decodable frame"),
        (r"codec|decoder|plugin|compression format", "it is compressed in a way no installed decoder reads"),
    )
)


def describe(exc: BaseException) -> str:
    """What is wrong with the file, from a decoder's exception, in our words."""
    text = str(exc)
    for pattern, problem in _PROBLEMS:
        if pattern.search(text):
            return problem
    return "its data cannot be decoded"


def corrupt(format_name: str, exc: BaseException) -> ApiError:
    """The error for a file of `format_name` that cannot be decoded."""
    text = str(exc)
    if "not implemented" in text.lower() or "not supported" in text.lower():
        return UnsupportedFormat(
            f"this {format_name} uses a feature the decoder does not support ({describe(exc)}); convert it with "
            "another tool first"
        )
    if "compression format has not been built" in text or "a suitable decoder plugin" in text:
        return UnsupportedFormat(f"this {format_name} is compressed with a codec that is not supported here")
    return InvalidInput(f"the {format_name} image is truncated or corrupt: {describe(exc)}")


def stream(source: Source) -> IO[bytes]:
    """The image's bytes to read: a buffer over them, or the file opened for reading."""
    return source.open("rb") if isinstance(source, Path) else io.BytesIO(source)


def head(source: Source, size: int) -> bytes:
    """The image's first `size` bytes."""
    if isinstance(source, Path):
        with source.open("rb") as file:
            return file.read(size)
    return source[:size]


def identify(data: Source) -> Image.Image:
    """Open (not decode) `data` (bytes or a file) with the plugin that claims it.

    :raises UnsupportedFormat: not an image in a format read here.
    :raises InvalidInput: a file of a format read here whose header is damaged.
    """
    from PIL import Image

    from fileapi.convert.detect import SNIFF_BYTES, detect_type

    try:
        return Image.open(stream(data))
    except DECODE_ERRORS as exc:  # UnidentifiedImageError is an OSError
        found = detect_type(head(data, SNIFF_BYTES))
        if found.mime in _READ_TYPES:
            name, plugin = _READ_TYPES[found.mime]
            raise corrupt(name, _plugin_error(plugin, data) or exc) from None
        raise _not_an_image(found) from None


def check_image_start(start: bytes) -> None:
    """Refuse, from an input's first bytes (`fileapi.convert.detect.SNIFF_BYTES` of them), what `open_image` would
    refuse before decoding: nothing at all, or a file whose content says it is of another kind (text, a document,
    an archive, audio, a font). A start that says nothing certain (unknown bytes, an image or video type) passes:
    only opening the file tells.

    :raises InvalidInput: empty.
    :raises UnsupportedFormat: another kind of file (the message `identify` gives it).
    """
    from fileapi.convert.detect import OCTET_STREAM, detect_type

    if not start:
        raise InvalidInput(EMPTY_IMAGE)
    found = detect_type(start)
    if found.mime == OCTET_STREAM.mime or (found.mime.startswith(_MAYBE_IMAGES) and found.mime != _SVG):
        return
    raise _not_an_image(found)


# Detected types that a decoder here may still open (an ISO-BMFF brand can name a video and hold an image).
_MAYBE_IMAGES = ("image/", "video/")
_SVG = "image/svg+xml"  # a drawing, not pixels: /v1/render/svg-to-png


def _not_an_image(found: FileType) -> UnsupportedFormat:
    what = f"{found.description} files are" if found.mime != "application/octet-stream" else "this is"
    return UnsupportedFormat(f"{what} not an image in a supported format ({SUPPORTED})")


# Types read here, by detected MIME type: the name used in messages and Pillow's plugin id.
_READ_TYPES = {
    "image/png": ("PNG", "PNG"),
    "image/jpeg": ("JPEG", "JPEG"),
    "image/gif": ("GIF", "GIF"),
    "image/bmp": ("BMP", "BMP"),
    "image/tiff": ("TIFF", "TIFF"),
    "image/webp": ("WebP", "WEBP"),
    "image/avif": ("AVIF", "AVIF"),
    "image/heic": ("HEIC", "HEIF"),
    "image/heif": ("HEIF", "HEIF"),
    "image/jxl": ("JPEG XL", "JXL"),
}


def _plugin_error(plugin: str, data: Source) -> BaseException | None:
    """What the plugin for the detected type says about `data` (Image.open only says it cannot identify it)."""
    from PIL import Image

    Image.init()
    opener = Image.OPEN.get(plugin)
    if opener is None:
        return None
    try:
        opener[0](stream(data), "")
    except DECODE_ERRORS as exc:
        return exc
    return None


def decode(data: Source, image: Image.Image) -> Image.Image:
    """Load the first frame of `image` (opened from `data`), then show it as meant: clean aperture,
    orientation, HDR tone mapping. Where the plugin fails on an AVIF/HEIF file, the other plugin is
    tried before the error.

    :raises InvalidInput: damaged. :raises UnsupportedFormat: a feature or codec not supported.
    """
    name = _display_name(image.format)
    try:
        return _shown(data, image)
    except DECODE_ERRORS as exc:
        error = corrupt(name, exc)
    other = _other_plugin(data, image.format)
    if other is not None:
        try:
            result = _shown(data, other)
        except DECODE_ERRORS:
            pass
        else:
            fallbacks.record(f"{image.format} -> {other.format}")
            return result
    raise error


def _display_name(format_name: str | None) -> str:
    return {"WEBP": "WebP", "HEIF": "HEIF/HEIC", "MPO": "JPEG"}.get(format_name or "", format_name or "image")


def _other_plugin(data: Source, format_name: str | None) -> Image.Image | None:
    """The same ISO-BMFF file opened by the other of the AVIF and HEIF plugins, if it accepts it."""
    if format_name not in ("AVIF", "HEIF"):
        return None
    try:
        if format_name == "AVIF":
            from pillow_heif.as_plugin import HeifImageFile

            return HeifImageFile(stream(data))  # type: ignore[no-untyped-call]
        from PIL.AvifImagePlugin import AvifImageFile

        return AvifImageFile(stream(data))
    except _OPEN_ERRORS:
        return None


def _shown(data: Source, image: Image.Image) -> Image.Image:
    from PIL import ImageOps

    image.load()
    shown: Image.Image = image
    if image.format == "AVIF":
        shown = _avif_as_meant(data, image)
    ImageOps.exif_transpose(shown, in_place=True)  # in place: no copy of the pixels when upright
    shown.format = image.format
    return shown


def _avif_as_meant(data: Source, image: Image.Image) -> Image.Image:
    """Crop to the clean aperture and tone-map PQ/HLG, which libavif leaves to its caller."""
    primary = read_primary_image(data.read_bytes() if isinstance(data, Path) else data)
    result = image
    box = primary.clean_aperture.crop_box(image.size) if primary.clean_aperture else None
    if box is not None:
        result = image.crop(box)
        result.info = dict(image.info)
    if primary.transfer in (TRANSFER_PQ, TRANSFER_HLG):
        result = tone_map(result, pq=primary.transfer == TRANSFER_PQ)
    result.format = image.format
    return result


# SDR reference white (ITU-R BT.2408) and the brightest highlight kept apart from white.
_REFERENCE_WHITE_NITS = 203.0
_PEAK_NITS = 1000.0


def tone_map(image: Image.Image, *, pq: bool) -> Image.Image:
    """8-bit PQ (SMPTE ST 2084) or HLG (BT.2100) code values to sRGB, per channel: to display light,
    then an extended Reinhard curve that puts the reference white (203 nits) at 1 and rolls
    highlights up to 1,000 nits off into it."""
    lut = _tone_curve(pq)
    bands = len(image.getbands())
    if image.mode not in ("RGB", "RGBA", "L", "LA"):
        return image
    colour = 1 if image.mode in ("L", "LA") else 3
    table = lut * colour + (list(range(256)) if bands > colour else [])
    mapped = image.point(table)
    mapped.info = dict(image.info)
    mapped.info.pop("icc_profile", None)  # the PQ/HLG profile no longer describes the pixels
    return mapped


def _tone_curve(pq: bool) -> list[int]:
    white = _PEAK_NITS / _REFERENCE_WHITE_NITS
    curve = []
    for code in range(256):
        signal = code / 255
        nits = _pq_to_nits(signal) if pq else _hlg_to_nits(signal)
        relative = nits / _REFERENCE_WHITE_NITS
        mapped = relative * (1 + relative / (white * white)) / (1 + relative)
        curve.append(round(255 * _srgb_encode(min(1.0, max(0.0, mapped)))))
    return curve


def _pq_to_nits(signal: float) -> float:
    m1, m2 = 2610 / 16384, 2523 / 4096 * 128
    c1, c2, c3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32
    power = signal ** (1 / m2)
    return float(10000 * (max(power - c1, 0.0) / (c2 - c3 * power)) ** (1 / m1))


def _hlg_to_nits(signal: float) -> float:
    a, b, c = 0.17883277, 0.28466892, 0.55991073
    scene = signal * signal / 3 if signal <= 0.5 else (math.exp((signal - c) / a) + b) / 12
    return float(_PEAK_NITS * scene**1.2)  # the BT.2100 system gamma at a 1,000-nit display


def _srgb_encode(linear: float) -> float:
    return 12.92 * linear if linear <= 0.0031308 else 1.055 * linear ** (1 / 2.4) - 0.055
