"""Reading image metadata, and stripping it without re-encoding the pixels.

strip: JPEG keeps its JFIF (APP0), ICC (APP2 ICC_PROFILE) and Adobe (APP14, colour transform)
segments, drops every other APPn (EXIF, XMP, IPTC/Photoshop...) and comments, and copies the
scan data byte for byte; PNG drops eXIf, tEXt, zTXt, iTXt and tIME chunks; WebP drops the EXIF
and XMP chunks and clears their VP8X flags. A JPEG whose EXIF orientation is not 1 keeps a
minimal EXIF holding only that tag, so that it still displays the same way. Other formats
(AVIF, HEIC, GIF, BMP, TIFF) are refused with unsupported_format: their metadata cannot be
removed here without re-encoding.
"""

from __future__ import annotations

import base64
import math
import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from fileapi.errors import InvalidInput, UnsupportedFormat

_JPEG_KEEP_APP = {0xE0, 0xEE}  # JFIF, Adobe
_PNG_DROP = {b"eXIf", b"tEXt", b"zTXt", b"iTXt", b"tIME"}
_WEBP_DROP = {b"EXIF", b"XMP "}
_VP8X_EXIF, _VP8X_XMP = 0x08, 0x04


def strip_metadata(data: bytes) -> tuple[bytes, str]:
    """Remove EXIF, IPTC, XMP, GPS and comments; return the bytes and their media type.

    :raises UnsupportedFormat: not JPEG, PNG or WebP.
    :raises InvalidInput: a JPEG, PNG or WebP whose structure is broken.
    """
    media_type = strippable_type(data[:12])
    strip = {"image/jpeg": _strip_jpeg, "image/png": _strip_png, "image/webp": _strip_webp}[media_type]
    return strip(data), media_type


def strippable_type(start: bytes) -> str:
    """The media type of an image whose metadata `strip_metadata` removes, from its first 12 bytes (or more).

    :raises UnsupportedFormat: not JPEG, PNG or WebP (or empty).
    """
    if start.startswith(b"\xff\xd8"):
        return "image/jpeg"
    if start.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if start[:4] == b"RIFF" and start[8:12] == b"WEBP":
        return "image/webp"
    raise UnsupportedFormat(
        "strip-metadata works on JPEG, PNG and WebP without re-encoding; convert other formats first"
    )


def _strip_jpeg(data: bytes) -> bytes:
    out = bytearray(b"\xff\xd8")
    position = 2
    orientation = 1
    while True:
        if position + 4 > len(data) or data[position] != 0xFF:
            raise InvalidInput(f"the JPEG is broken at byte {position} (expected a marker)")
        marker = data[position + 1]
        if marker == 0xFF:  # fill byte
            position += 1
            continue
        if marker == 0xDA or marker == 0xD9:  # start of scan / end: the scans follow
            if orientation != 1:
                out += _minimal_exif(orientation)
            out += _scans(data, position)
            return bytes(out)
        if 0xD0 <= marker <= 0xD7 or marker == 0x01:
            out += data[position : position + 2]
            position += 2
            continue
        length = struct.unpack(">H", data[position + 2 : position + 4])[0]
        end = position + 2 + length
        if length < 2 or end > len(data):
            raise InvalidInput(f"the JPEG segment at byte {position} runs past the end of the file")
        segment = data[position:end]
        payload = segment[4:]
        if marker == 0xE1 and payload.startswith(b"Exif\x00\x00"):
            orientation = _exif_orientation(payload[6:])
        keep = (
            marker in _JPEG_KEEP_APP
            or (marker == 0xE2 and payload.startswith(b"ICC_PROFILE\x00"))
            or not _is_metadata(marker)
        )
        if keep:
            out += segment
        position = end


def _is_metadata(marker: int) -> bool:
    """An APPn segment (EXIF, XMP, IPTC, ICC, JFIF...) or a comment: the segments metadata lives in."""
    return 0xE0 <= marker <= 0xEF or marker == 0xFE


# In entropy-coded data, 0xFF is followed by 0x00 (a stuffed byte), a restart marker or another 0xFF (fill): any
# other byte after it starts the next marker segment.
_NEXT_MARKER = re.compile(rb"\xff(?=[^\x00\xd0-\xd7\xff])")


def _scans(data: bytes, position: int) -> bytes:
    """From the first SOS (or EOI) at `position`: the scans, their entropy-coded data byte for byte and the tables
    between them, without the APPn and COM segments a progressive JPEG may carry between scans, ending at the
    first EOI. What follows it is not this image: an MPO's other images (each with its own EXIF and GPS), whose
    index went with their APP2 segment. A file cut short keeps what it has."""
    out = bytearray()
    while position + 2 <= len(data) and data[position] == 0xFF:
        marker = data[position + 1]
        if marker == 0xD9:
            return bytes(out + b"\xff\xd9")
        if marker == 0xFF:  # fill byte
            position += 1
            continue
        if position + 4 > len(data):
            break
        end = position + 2 + struct.unpack(">H", data[position + 2 : position + 4])[0]
        if not _is_metadata(marker):
            out += data[position:end]
        position = end
        if marker == 0xDA:
            found = _NEXT_MARKER.search(data, position)
            if found is None:
                break
            out += data[position : found.start()]
            position = found.start()
    return bytes(out + data[position:])


def _exif_orientation(tiff: bytes) -> int:
    """The Orientation (0x0112) of IFD0 of a TIFF-structured EXIF block, or 1."""
    try:
        order = "<" if tiff[:2] == b"II" else ">"
        ifd = struct.unpack(order + "I", tiff[4:8])[0]
        count = struct.unpack(order + "H", tiff[ifd : ifd + 2])[0]
        for index in range(count):
            entry = tiff[ifd + 2 + 12 * index : ifd + 14 + 12 * index]
            tag, kind = struct.unpack(order + "HH", entry[:4])
            if tag == 0x0112 and kind == 3:
                value = int(struct.unpack(order + "H", entry[8:10])[0])
                return value if 1 <= value <= 8 else 1
    except struct.error:
        return 1
    return 1


def _minimal_exif(orientation: int) -> bytes:
    """An APP1 segment with an EXIF IFD0 holding only the Orientation tag."""
    tiff = b"MM\x00\x2a" + struct.pack(">I", 8) + struct.pack(">H", 1)
    tiff += struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0) + struct.pack(">I", 0)
    payload = b"Exif\x00\x00" + tiff
    return b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload


def _strip_png(data: bytes) -> bytes:
    out = bytearray(data[:8])
    position = 8
    for kind, start, end in _png_chunks(data):
        if kind not in _PNG_DROP:
            out += data[start:end]
        position = end
    if position < len(data) and not out.endswith(b"IEND\xaeB`\x82"):
        raise InvalidInput(f"the PNG is truncated at byte {position}")
    return bytes(out)


def _png_chunks(data: bytes) -> Iterator[tuple[bytes, int, int]]:
    """(type, start, end) of each chunk of a PNG, `start` and `end` framing the whole chunk; stops at
    IEND or where the file ends.

    :raises InvalidInput: a chunk runs past the end of the file.
    """
    position = 8
    while position + 12 <= len(data):
        length = struct.unpack(">I", data[position : position + 4])[0]
        kind = data[position + 4 : position + 8]
        end = position + 12 + length
        if end > len(data):
            raise InvalidInput(f"the PNG chunk {kind!r} at byte {position} runs past the end of the file")
        yield kind, position, end
        if kind == b"IEND":
            return
        position = end


def _png_chunk(data: bytes, wanted: bytes) -> bytes | None:
    """The payload of the first chunk of type `wanted`, found by walking the chunks (no decoding)."""
    for kind, start, end in _png_chunks(data):
        if kind == wanted:
            return data[start + 8 : end - 4]
    return None


def _strip_webp(data: bytes) -> bytes:
    chunks = bytearray()
    position = 12
    end_of_riff = min(len(data), 8 + struct.unpack("<I", data[4:8])[0])
    vp8x_at = None
    while position + 8 <= end_of_riff:
        kind = data[position : position + 4]
        size = struct.unpack("<I", data[position + 4 : position + 8])[0]
        end = position + 8 + size + (size & 1)
        if end > len(data) + (size & 1):
            raise InvalidInput(f"the WebP chunk {kind!r} at byte {position} runs past the end of the file")
        if kind not in _WEBP_DROP:
            if kind == b"VP8X":
                vp8x_at = len(chunks)
            chunks += data[position:end]
        position = end
    if vp8x_at is not None:
        chunks[vp8x_at + 8] &= ~(_VP8X_EXIF | _VP8X_XMP) & 0xFF
    return b"RIFF" + struct.pack("<I", len(chunks) + 4) + b"WEBP" + bytes(chunks)


@dataclass(frozen=True)
class ImageMetadata:
    width: int
    height: int
    takenAt: str | None = None
    camera: dict[str, str] | None = None
    gps: dict[str, float] | None = None
    exif: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"width": self.width, "height": self.height}
        for name in ("takenAt", "camera", "gps"):
            value = getattr(self, name)
            if value:
                body[name] = value
        body["exif"] = self.exif
        return body


def read_metadata(data: bytes) -> ImageMetadata:
    """Dimensions as displayed, capture time, camera, GPS and the other EXIF tags by name, read from
    the headers: the pixels are never decoded, so an image of any size is answered.

    :raises UnsupportedFormat: not an image. :raises InvalidInput: unreadable.
    """
    from PIL import ExifTags

    from fileapi.convert.image_decode import DECODE_ERRORS, EMPTY_IMAGE, corrupt, identify
    from fileapi.convert.image_io import INPUT_FORMATS, load_pillow

    load_pillow()
    if not data:
        raise InvalidInput(EMPTY_IMAGE)
    image = identify(data)
    if image.format not in INPUT_FORMATS:
        raise UnsupportedFormat(f"{image.format} images are not supported as input")
    if image.format == "PNG" and "exif" not in image.info and "Raw profile type exif" not in image.info:
        # Pillow decodes a whole PNG to reach an eXIf chunk after the pixel data: read it from the chunks
        image.info["exif"] = _png_chunk(data, b"eXIf") or b""
    try:
        exif = image.getexif()
    except DECODE_ERRORS as exc:
        raise corrupt(image.format or "image", exc) from None
    width, height = image.size
    base = dict(exif)
    if base.get(0x0112) in (5, 6, 7, 8):
        width, height = height, width
    details = _safe_ifd(exif, ExifTags.IFD.Exif)
    gps_ifd = _safe_ifd(exif, ExifTags.IFD.GPSInfo)
    tags: dict[str, Any] = {}
    for source in (base, details):
        for tag, value in source.items():
            name = ExifTags.TAGS.get(tag)
            if name and tag not in (0x8769, 0x8825, 0x927C) and (converted := _json_value(value)) is not None:
                tags[name] = converted
    camera = {
        key: str(tags[name]).strip("\x00 ").strip()
        for key, name in (("make", "Make"), ("model", "Model"), ("lens", "LensModel"))
        if isinstance(tags.get(name), str) and str(tags[name]).strip("\x00 ")
    }
    return ImageMetadata(
        width=width,
        height=height,
        takenAt=_taken_at(tags),
        camera=camera or None,
        gps=_gps(gps_ifd),
        exif=tags,
    )


def _safe_ifd(exif: Any, ifd: int) -> dict[int, Any]:
    try:
        return dict(exif.get_ifd(ifd))
    except (KeyError, ValueError, TypeError, struct.error, OSError):
        return {}


def _json_value(value: Any) -> Any:
    if isinstance(value, bytes):
        return base64.b64encode(value).decode() if len(value) <= 256 else None
    if isinstance(value, str):
        return value.replace("\x00", "").strip()
    if isinstance(value, bool | int):
        return value
    if isinstance(value, tuple | list):
        items = [_json_value(item) for item in value]
        return [item for item in items if item is not None]
    try:
        number = float(value)
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    return number if math.isfinite(number) else None


def _taken_at(tags: dict[str, Any]) -> str | None:
    raw = tags.get("DateTimeOriginal") or tags.get("DateTime")
    if not isinstance(raw, str):
        return None
    try:
        moment = datetime.strptime(raw.strip()[:19], "%Y:%m:%d %H:%M:%S")
    except ValueError:
        return None
    offset = tags.get("OffsetTimeOriginal") or tags.get("OffsetTime")
    text = moment.isoformat()
    if isinstance(offset, str) and len(offset) == 6 and offset[0] in "+-" and offset[3] == ":":
        text += offset
    return text


def _gps(gps: dict[int, Any]) -> dict[str, float] | None:
    result: dict[str, float] = {}
    for key, value_tag, ref_tag, negative in (("latitude", 2, 1, "S"), ("longitude", 4, 3, "W")):
        degrees = _degrees(gps.get(value_tag))
        if degrees is None:
            continue
        ref = gps.get(ref_tag)
        ref_text = ref.decode(errors="replace") if isinstance(ref, bytes) else str(ref or "")
        result[key] = round(-degrees if ref_text.strip("\x00 ").upper() == negative else degrees, 7)
    if "latitude" not in result or "longitude" not in result:
        return None
    altitude = _json_value(gps.get(6))
    if isinstance(altitude, float | int):
        below = gps.get(5) in (1, b"\x01")
        result["altitude"] = round(-float(altitude) if below else float(altitude), 2)
    return result


def _degrees(value: Any) -> float | None:
    try:
        d, m, s = (float(part) for part in value)
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    total = d + m / 60 + s / 3600
    return total if math.isfinite(total) and total <= 180 else None
