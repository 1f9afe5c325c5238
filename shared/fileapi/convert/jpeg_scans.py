"""The decoding cost of a JPEG's scans, read from its markers before libjpeg decodes any.

A progressive JPEG codes its pixels in scans, and libjpeg passes over every block of the image at each
one: a 0.5 MB file of 7000x7000 pixels in 50,000 scans ran to the 20 s deadline. The scans are counted
as SOS markers (FF DA), which entropy-coded data cannot hold (an FF there is followed by 00 or a restart
marker); a thumbnail's scans inside an APP segment are counted too, which errs on the side of refusing.

Rates: libjpeg-turbo through Pillow, CPU time on the development machine, one AC refinement scan
repeated (`python -m bench.cost_rates` prints each beside the prediction): 16x16 in 100,000 scans 0.04-0.06 s,
256x256 in 20,000 0.77 s, 2000x2000 in 1,000 2.26-2.5 s, 4000x4000 in 1,000 9.2 s.
"""

from __future__ import annotations

from pathlib import Path

from fileapi.errors import TooLarge

BUDGET_SECONDS = 5.0  # a quarter of the 20 s deadline, as the SVG and PDF predictions
SCAN_NS = 400  # each scan, whatever its size
SCAN_PIXEL_NS = 0.6  # each pixel at each scan: 0.56-0.59 ns
_SOS = b"\xff\xda"
_CHUNK_BYTES = 1 << 20


def count_scans(source: bytes | Path) -> int:
    """The SOS markers of a JPEG (bytes, or a file read in 1 MiB chunks)."""
    if not isinstance(source, Path):
        return source.count(_SOS)
    scans = 0
    last = b""
    with source.open("rb") as file:
        while chunk := file.read(_CHUNK_BYTES):
            scans += (last + chunk[:1]).count(_SOS) + chunk.count(_SOS)
            last = chunk[-1:]
    return scans


def decoding_seconds(scans: int, size: tuple[int, int]) -> float:
    """The predicted CPU seconds of decoding `scans` scans of an image of `size` (width, height) pixels."""
    return scans * (SCAN_NS + size[0] * size[1] * SCAN_PIXEL_NS) / 1e9


def check_scans(source: bytes | Path, size: tuple[int, int]) -> None:
    """Refuse a JPEG whose scans would take longer to decode than the budget allows.

    :param size: the image's stored (width, height) in pixels.
    :raises TooLarge: naming the scans, the pixels and the time, and what to change.
    """
    scans = count_scans(source)
    seconds = decoding_seconds(scans, size)
    if seconds > BUDGET_SECONDS:
        width, height = size
        most = int(BUDGET_SECONDS * 1e9 / (SCAN_NS + width * height * SCAN_PIXEL_NS))
        raise TooLarge(
            f"the JPEG is coded in {scans:,} scans of {width}x{height} pixels: decoding it would take about "
            f"{seconds:,.0f} s, over the {BUDGET_SECONDS:g} s this service allows (at most {most:,} scans at this "
            "size; a progressive JPEG usually has about 10): save it again as a baseline or standard progressive JPEG"
        )
