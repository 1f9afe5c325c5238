"""read-metadata, strip-metadata and detect read headers and chunks only: an image of any size is
answered, and an image whose pixel data is garbage too (it is never decoded)."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from fileapi.convert.detect import detect_type
from fileapi.convert.image_metadata import read_metadata, strip_metadata
from fileapi.errors import InvalidInput
from tests.hostile_files import exif_with_make, gif_of_frames, png_of_zeros


@pytest.fixture(scope="module")
def huge_png() -> bytes:
    """12000 x 12000 = 144 MP of black pixels with an eXIf chunk after the pixel data: 420 KB."""
    return png_of_zeros(12_000, 12_000, exif=exif_with_make("Hostile"))


def test_read_metadata_of_144_megapixels_reads_the_exif_after_the_pixel_data(huge_png: bytes) -> None:
    metadata = read_metadata(huge_png)
    assert (metadata.width, metadata.height, metadata.camera) == (12_000, 12_000, {"make": "Hostile"})


def test_read_metadata_never_decodes_the_pixels() -> None:
    garbage = png_of_zeros(4000, 3000, exif=exif_with_make("Camera"), idat=b"not zlib" * 100)
    with pytest.raises(OSError, match=r"broken data stream|decompress"):
        Image.open(io.BytesIO(garbage)).load()
    assert read_metadata(garbage).as_json() == {
        "width": 4000,
        "height": 3000,
        "camera": {"make": "Camera"},
        "exif": {"Make": "Camera"},
    }


def test_read_metadata_of_a_png_without_exif_has_none() -> None:
    assert read_metadata(png_of_zeros(30, 20)).as_json() == {"width": 30, "height": 20, "exif": {}}


def test_strip_metadata_of_144_megapixels_drops_the_exif_chunk(huge_png: bytes) -> None:
    stripped, media_type = strip_metadata(huge_png)
    assert media_type == "image/png" and b"eXIf" not in stripped
    assert len(stripped) == len(huge_png) - (12 + len(exif_with_make("Hostile")))


def test_strip_metadata_of_a_truncated_png_says_so() -> None:
    with pytest.raises(InvalidInput, match="runs past the end of the file"):
        strip_metadata(png_of_zeros(30, 20)[:-20])


def test_detect_of_144_megapixels_reads_the_magic_bytes(huge_png: bytes) -> None:
    assert detect_type(huge_png).mime == "image/png"


def test_an_animation_of_3000_large_frames_is_measured_from_its_frame_headers() -> None:
    image = Image.open(io.BytesIO(gif_of_frames(3000, 1000)))
    assert (getattr(image, "n_frames", 1), image.size) == (3000, (1000, 1000))
