"""Image family over the public image sets in ../shared/corpus (skipped when absent)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from fileapi.convert.image import convert_image
from fileapi.convert.image_io import ImageFormat
from fileapi.convert.image_metadata import read_metadata
from fileapi.errors import ApiError
from tests.helpers import CORPUS, corpus_dir

pytestmark = pytest.mark.corpus

IMAGE_SETS = ("exif-samples", "libheif", "link-u-avif", "libpng-pngsuite", "pillow-images")
SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".avif", ".avifs", ".heic", ".heif", ".gif", ".bmp", ".tif", ".tiff"}


def image_files() -> list[Path]:
    files: list[Path] = []
    for name in IMAGE_SETS:
        folder = CORPUS / name
        if folder.is_dir():
            files += sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES)
    return files


FILES = image_files()


def test_image_sets_are_present() -> None:
    for name in IMAGE_SETS:
        corpus_dir(name)
    assert len(FILES) > 200


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(CORPUS)) for p in FILES])
def test_every_file_converts_or_gets_a_4xx(path: Path) -> None:
    data = path.read_bytes()
    for fmt in (ImageFormat.PNG, ImageFormat.JPEG, ImageFormat.WEBP, ImageFormat.AVIF):
        try:
            result = convert_image(data, to=fmt)
        except ApiError as exc:
            assert 400 <= exc.http_status < 500, f"{exc.code}: {exc.message}"
            return  # a file that cannot be read gives the same 4xx for every format
        from PIL import Image

        assert Image.open(io.BytesIO(result.data)).format == fmt.name


def test_gps_is_found_in_every_gps_sample() -> None:
    folder = corpus_dir("exif-samples") / "jpg" / "gps"
    files = sorted(folder.glob("*.jpg"))
    assert len(files) == 9
    for path in files:
        gps = read_metadata(path.read_bytes()).gps
        assert gps is not None, path.name
        assert -90 <= gps["latitude"] <= 90 and -180 <= gps["longitude"] <= 180


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(CORPUS)) for p in FILES])
def test_read_metadata_never_fails_unexpectedly(path: Path) -> None:
    try:
        read_metadata(path.read_bytes())
    except ApiError as exc:
        assert 400 <= exc.http_status < 500
