"""What the ISO-BMFF boxes of an AVIF or HEIF file say about its primary image (HEIF, ISO 23008-12).

Pillow's AVIF plugin decodes the pixels but applies neither the clean aperture (`clap`) nor a
transfer function; this reads them, so that the image is cropped as it is meant to be shown and HDR
(PQ or HLG) pixels can be tone-mapped. Only the boxes needed are read; anything malformed gives
an empty description (the decoder then has the last word).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

# Transfer characteristics (ITU-T H.273) of HDR images.
TRANSFER_PQ = 16
TRANSFER_HLG = 18
_MAX_BOXES = 10_000


@dataclass(frozen=True)
class CleanAperture:
    """The `clap` box: a width x height window centred on the image centre moved by the offsets."""

    width: Fraction
    height: Fraction
    horizontal_offset: Fraction
    vertical_offset: Fraction

    def crop_box(self, size: tuple[int, int]) -> tuple[int, int, int, int] | None:
        """(left, top, right, bottom) in pixels of an image of `size`, or None when it does not fit."""
        image_width, image_height = size
        width, height = round(self.width), round(self.height)
        left = round((image_width - self.width) / 2 + self.horizontal_offset)
        top = round((image_height - self.height) / 2 + self.vertical_offset)
        box = (left, top, left + width, top + height)
        if box[0] < 0 or box[1] < 0 or box[2] > image_width or box[3] > image_height or box[0] >= box[2]:
            return None
        if box[1] >= box[3] or box == (0, 0, image_width, image_height):
            return None
        return box


@dataclass(frozen=True)
class PrimaryImage:
    """Properties of the primary item that matter for showing it."""

    brands: frozenset[bytes] = frozenset()
    clean_aperture: CleanAperture | None = None
    transfer: int | None = None  # colour transfer characteristics (nclx), e.g. 16 = PQ
    primaries: int | None = None  # colour primaries (nclx), e.g. 9 = BT.2020


def _boxes(data: bytes, start: int = 0, end: int | None = None) -> Iterator[tuple[bytes, int, int]]:
    """(type, payload start, payload end) of the boxes in data[start:end]."""
    end = len(data) if end is None else end
    position = start
    for _ in range(_MAX_BOXES):
        if position + 8 > end:
            return
        size, kind = struct.unpack_from(">I4s", data, position)
        header = 8
        if size == 1 and position + 16 <= end:
            size = struct.unpack_from(">Q", data, position + 8)[0]
            header = 16
        elif size == 0:
            size = end - position
        if size < header or position + size > end:
            return
        yield kind, position + header, position + size
        position += size


def _child(data: bytes, start: int, end: int, kind: bytes) -> tuple[int, int] | None:
    for found, payload, stop in _boxes(data, start, end):
        if found == kind:
            return payload, stop
    return None


def read_primary_image(data: bytes) -> PrimaryImage:
    """The brands and the primary item's clean aperture and colour description (empty when unknown)."""
    try:
        return _read(data)
    except (struct.error, ZeroDivisionError, ValueError, IndexError):
        return PrimaryImage()


def _read(data: bytes) -> PrimaryImage:
    ftyp = _child(data, 0, len(data), b"ftyp")
    brands: frozenset[bytes] = frozenset()
    if ftyp is not None:
        start, stop = ftyp
        brands = frozenset({data[start : start + 4]} | {data[i : i + 4] for i in range(start + 8, stop - 3, 4)})
    meta = _child(data, 0, len(data), b"meta")
    if meta is None:
        return PrimaryImage(brands)
    meta_start, meta_end = meta[0] + 4, meta[1]  # a full box: version and flags first
    primary = _primary_item(data, meta_start, meta_end)
    iprp = _child(data, meta_start, meta_end, b"iprp")
    if primary is None or iprp is None:
        return PrimaryImage(brands)
    ipco = _child(data, iprp[0], iprp[1], b"ipco")
    if ipco is None:
        return PrimaryImage(brands)
    properties = list(_boxes(data, ipco[0], ipco[1]))
    indices = _associations(data, iprp, primary)
    clap: CleanAperture | None = None
    transfer = primaries = None
    for index in indices:
        if not 1 <= index <= len(properties):
            continue
        kind, start, stop = properties[index - 1]
        if kind == b"clap" and stop - start >= 32:
            values = struct.unpack_from(">IIIIiIiI", data, start)
            clap = CleanAperture(
                Fraction(values[0], values[1]),
                Fraction(values[2], values[3]),
                Fraction(values[4], values[5]),
                Fraction(values[6], values[7]),
            )
        elif kind == b"colr" and data[start : start + 4] == b"nclx" and stop - start >= 10:
            primaries, transfer = struct.unpack_from(">HH", data, start + 4)
    return PrimaryImage(brands, clap, transfer, primaries)


def _primary_item(data: bytes, start: int, end: int) -> int | None:
    pitm = _child(data, start, end, b"pitm")
    if pitm is None:
        return None
    version = data[pitm[0]]
    return int(struct.unpack_from(">H" if version == 0 else ">I", data, pitm[0] + 4)[0])


def _associations(data: bytes, iprp: tuple[int, int], item: int) -> list[int]:
    """Property indices (1-based into ipco) associated with `item`, in order."""
    ipma = _child(data, iprp[0], iprp[1], b"ipma")
    if ipma is None:
        return []
    version, flags = data[ipma[0]], int.from_bytes(data[ipma[0] + 1 : ipma[0] + 4], "big")
    position = ipma[0] + 4
    count = struct.unpack_from(">I", data, position)[0]
    position += 4
    for _ in range(min(count, _MAX_BOXES)):
        if version < 1:
            item_id = struct.unpack_from(">H", data, position)[0]
            position += 2
        else:
            item_id = struct.unpack_from(">I", data, position)[0]
            position += 4
        associations = data[position]
        position += 1
        indices = []
        for _ in range(associations):
            if flags & 1:
                indices.append(struct.unpack_from(">H", data, position)[0] & 0x7FFF)
                position += 2
            else:
                indices.append(data[position] & 0x7F)
                position += 1
        if item_id == item:
            return indices
    return []
