"""JPEG XL beyond Pillow's plugin: a file's image size read from its header before anything decodes it,
pixels encoded without metadata, and the lossless recompression of a JPEG.

pillow-jxl-plugin decodes a whole file when Pillow opens it, so the pixel limit is checked first, from
the codestream's SizeHeader (ISO/IEC 18181-1, 8.1.2 SizeHeader), bare (FF 0A) or in the ISO-BMFF
container (its `jxlc` box, or the first `jxlp` box).
"""

from __future__ import annotations

import io
import struct
from typing import TYPE_CHECKING

from fileapi.errors import InvalidInput

if TYPE_CHECKING:
    from PIL import Image

CODESTREAM = b"\xff\x0a"
CONTAINER = b"\x00\x00\x00\x0cJXL \r\n\x87\n"
# SizeHeader's ratio codes 1..7: width = height * numerator / denominator.
_RATIOS = ((1, 1), (12, 10), (4, 3), (3, 2), (16, 9), (5, 4), (2, 1))
# U32(Bits(9), Bits(13), Bits(18), Bits(30)) + 1: a side that is not a multiple of 8 up to 2^30.
_SIDE_BITS = (9, 13, 18, 30)


def is_jxl(start: bytes) -> bool:
    """Whether `start` (a file's first 12 bytes) opens a JPEG XL codestream or container."""
    return start[:2] == CODESTREAM or start[:12] == CONTAINER


def jxl_size(data: bytes) -> tuple[int, int]:
    """(width, height) in pixels, as stored (before orientation), from a JPEG XL file's header.

    :raises InvalidInput: not a JPEG XL file, or one whose header is cut short or malformed.
    """
    codestream = data if data[:2] == CODESTREAM else _codestream_start(data)
    if codestream[:2] != CODESTREAM:
        raise InvalidInput("the JPEG XL image is truncated or corrupt: it holds no codestream")
    bits = _Bits(codestream[2:])
    small = bits.read(1)
    height = (bits.read(5) + 1) * 8 if small else _side(bits)
    ratio = bits.read(3)
    if ratio:
        numerator, denominator = _RATIOS[ratio - 1]
        width = height * numerator // denominator
    else:
        width = (bits.read(5) + 1) * 8 if small else _side(bits)
    return width, height


def encode_pixels(image: Image.Image, *, quality: float, effort: int, lossless: bool) -> bytes:
    """`image`'s pixels (mode RGB, RGBA, L or LA) as a bare JPEG XL codestream, with no metadata.

    libjxl's own encoder, not the plugin's save: that one writes the source's EXIF (GPS included) and, for
    a JPEG's pixels that are no longer its file (resized, rotated), fails on the missing file name.

    :param quality: libjxl's quality, a float 0..100 (distance 0.1 + (100 - quality) x 0.09 from 30 up:
        quality 90 is distance 1.0); 100 only with `lossless`.
    :param effort: libjxl's effort 1..9 (higher: smaller and slower).
    :raises ValueError, RuntimeError: libjxl refused the pixels or the settings.
    """
    from pillow_jxl import Encoder

    # The plugin's stub predates its mode, effort and metadata arguments (pillow-jxl-plugin 1.3.8 takes them).
    encoder = Encoder(mode=image.mode, lossless=lossless, quality=quality, effort=effort)  # type: ignore[call-arg]
    return bytes(encoder(image.tobytes(), image.width, image.height, jpeg_encode=False))


def transcode_jpeg(jpeg: bytes) -> bytes:
    """The lossless JPEG XL recompression of `jpeg` (libjxl's JPEG reconstruction data kept, so that a
    JPEG XL decoder gives back `jpeg` byte for byte), at libjxl's default effort (7).

    :raises InvalidInput: a JPEG that libjxl cannot recompress (e.g. arithmetic-coded or damaged).
    """
    from PIL import Image
    from pillow_jxl import Encoder

    with Image.open(io.BytesIO(jpeg)) as image:
        size, mode = image.size, image.mode
    # The plugin's stub predates its mode and effort arguments (pillow-jxl-plugin 1.3.8 takes both).
    encoder = Encoder(mode="L" if mode == "L" else "RGB", lossless=True, quality=100, effort=7)  # type: ignore[call-arg]
    try:
        return bytes(encoder(jpeg, size[0], size[1], jpeg_encode=True))
    except (OSError, ValueError, RuntimeError) as exc:
        raise InvalidInput(
            "this JPEG cannot be recompressed losslessly (arithmetic coding or damaged data): convert it "
            "without jpegTranscode"
        ) from exc


def _codestream_start(data: bytes) -> bytes:
    """The start of the codestream in an ISO-BMFF container: the `jxlc` box, or the first `jxlp` box
    (after its 4-byte index)."""
    position = 0
    while position + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[position : position + 8])
        header = 8
        if size == 1:
            if position + 16 > len(data):
                break
            (size,) = struct.unpack(">Q", data[position + 8 : position + 16])
            header = 16
        elif size == 0:
            size = len(data) - position
        if size < header:
            break
        if kind == b"jxlc":
            return data[position + header : position + size]
        if kind == b"jxlp":
            return data[position + header + 4 : position + size]
        position += size
    return b""


def _side(bits: _Bits) -> int:
    return bits.read(_SIDE_BITS[bits.read(2)]) + 1


class _Bits:
    """Reads a byte string's bits least significant first, as JPEG XL stores them."""

    def __init__(self, data: bytes) -> None:
        self._value = int.from_bytes(data[:16], "little")
        self._available = 8 * len(data[:16])
        self._position = 0

    def read(self, count: int) -> int:
        if self._position + count > self._available:
            raise InvalidInput("the JPEG XL image is truncated or corrupt: its header ends too early")
        value = (self._value >> self._position) & ((1 << count) - 1)
        self._position += count
        return value
