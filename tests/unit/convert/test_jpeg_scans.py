"""A JPEG's scans counted from its markers and refused before libjpeg decodes them (fileapi.convert.jpeg_scans)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fileapi.convert import jpeg_scans
from fileapi.convert.image import convert_image
from fileapi.convert.image_io import ImageFormat, open_image
from fileapi.convert.jpeg_scans import check_scans, count_scans, decoding_seconds
from fileapi.errors import TooLarge
from tests.hostile_files import jpeg_of_scans


def test_scans_are_counted_from_the_markers() -> None:
    assert count_scans(jpeg_of_scans(64, 500)) == 500


def test_a_file_is_counted_in_chunks_with_a_marker_across_their_border(tmp_path: Path) -> None:
    data = jpeg_of_scans(64, 300)
    at = data.index(b"\xff\xda", 2000)
    path = tmp_path / "scans.jpg"
    path.write_bytes(data)
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(jpeg_scans, "_CHUNK_BYTES", at + 1)  # the marker's FF ends a chunk, its DA starts the next
        assert count_scans(path) == 300


def test_the_issue_s_scan_bomb_is_refused_before_decoding() -> None:
    data = jpeg_of_scans(7000, 50_000)
    with pytest.raises(TooLarge, match=r"coded in 50,000 scans of 7000x7000 pixels.*at most 170 scans at this size"):
        open_image(data)


def test_both_sides_of_the_budget() -> None:
    assert decoding_seconds(1000, (1000, 1000)) < jpeg_scans.BUDGET_SECONDS < decoding_seconds(10_000, (1000, 1000))
    check_scans(jpeg_of_scans(100, 1000), (100, 100))
    with pytest.raises(TooLarge, match="save it again as a baseline"):
        convert_image(jpeg_of_scans(1000, 10_000), to=ImageFormat.PNG)


def test_an_ordinary_progressive_jpeg_decodes() -> None:
    image = open_image(jpeg_of_scans(300, 6))
    assert image.size == (300, 300)
