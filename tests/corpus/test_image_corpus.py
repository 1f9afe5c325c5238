"""Image family over the public image sets in ../shared/corpus, through the HTTP app (skipped when absent)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from PIL import Image

from tests.helpers import CORPUS, corpus_dir, post_bytes

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
def test_every_file_converts_or_gets_a_4xx(path: Path, api: TestClient, key: str) -> None:
    data = path.read_bytes()
    for to in ("png", "jpeg", "webp", "avif"):
        response = post_bytes(api, key, "/v1/image/convert", data, to=to)
        if response.status_code != 200:
            assert 400 <= response.status_code < 500, response.text
            return  # a file that cannot be read gives the same 4xx for every format
        assert Image.open(io.BytesIO(response.content)).format == to.upper()


def test_gps_is_found_in_every_gps_sample(api: TestClient, key: str) -> None:
    folder = corpus_dir("exif-samples") / "jpg" / "gps"
    files = sorted(folder.glob("*.jpg"))
    assert len(files) == 9
    for path in files:
        gps = post_bytes(api, key, "/v1/image/read-metadata", path.read_bytes()).json().get("gps")
        assert gps is not None, path.name
        assert -90 <= gps["latitude"] <= 90 and -180 <= gps["longitude"] <= 180


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(CORPUS)) for p in FILES])
def test_read_metadata_never_fails_unexpectedly(path: Path, api: TestClient, key: str) -> None:
    response = post_bytes(api, key, "/v1/image/read-metadata", path.read_bytes())
    assert response.status_code == 200 or 400 <= response.status_code < 500, response.text
