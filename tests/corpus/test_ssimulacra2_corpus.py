"""The libvips SSIMULACRA2 scorer agrees with the independent `ssimulacra2` package within 0.1 on corpus
photographs (../shared/corpus, see SOURCES.md) in JPEG, WebP, AVIF and JPEG XL at low to high qualities."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from fileapi.convert.image_io import ImageFormat, encode, open_image
from fileapi.convert.ssimulacra2 import ssimulacra2
from tests.helpers import CORPUS

pytestmark = pytest.mark.corpus
package = pytest.importorskip("ssimulacra2")

PHOTOGRAPHS = (
    "link-u-avif/kimono.jpg",
    "exif-samples/jpg/gps/DSCN0029.jpg",
    "exif-samples/jpg/exif-org/nikon-e950.jpg",
)
ENCODINGS = [
    (ImageFormat.JPEG, 40),
    (ImageFormat.JPEG, 90),
    (ImageFormat.WEBP, 75),
    (ImageFormat.AVIF, 55),
    (ImageFormat.JXL, 85),
]


@pytest.mark.parametrize("name", PHOTOGRAPHS)
def test_scores_agree_with_the_package_on_corpus_photographs(name: str, tmp_path: Path) -> None:
    original = open_image((CORPUS / name).read_bytes()).convert("RGB")
    original.save(tmp_path / "original.png")
    for fmt, quality in ENCODINGS:
        distorted = Image.open(io.BytesIO(encode(original, fmt, quality=quality))).convert("RGB")
        distorted.save(tmp_path / "distorted.png")
        theirs = float(package.compute_ssimulacra2(str(tmp_path / "original.png"), str(tmp_path / "distorted.png")))
        ours = ssimulacra2(original, distorted)
        assert ours == pytest.approx(theirs, abs=0.1), f"{name} as {fmt.value} at quality {quality}"
