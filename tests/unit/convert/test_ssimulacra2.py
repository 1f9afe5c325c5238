"""The libvips SSIMULACRA2 scorer against the independent `ssimulacra2` package (numpy and scipy, a test
requirement only) on generated images of several formats and qualities; its tiled path against its in-memory
one; and its refusals."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from PIL import Image

from fileapi.convert import ssimulacra2 as scorer
from fileapi.convert.image import convert_image
from fileapi.convert.image_io import ImageFormat
from fileapi.convert.image_vips import installed_vips
from fileapi.convert.ssimulacra2 import Reference, linear_rgb, score_in_bands, ssimulacra2
from fileapi.errors import InternalError
from tests.unit.convert.test_quality_search import independent_score, photo, png

ENCODINGS = [("JPEG", 30), ("JPEG", 90), ("WEBP", 60), ("AVIF", 50), ("JXL", 85)]


def encoded(image: Image.Image, fmt: str, quality: int) -> bytes:
    if fmt == "JXL":
        import pillow_jxl  # noqa: F401  registers JPEG XL with Pillow
    out = io.BytesIO()
    image.save(out, fmt, quality=quality)
    return out.getvalue()


@pytest.mark.parametrize(("fmt", "quality"), ENCODINGS)
def test_scores_agree_with_the_package_within_0_1(fmt: str, quality: int, tmp_path: Path) -> None:
    original = photo(400, 300)  # both sides >= 256 px: all 6 scales are measured
    data = encoded(original, fmt, quality)
    ours = ssimulacra2(original, Image.open(io.BytesIO(data)).convert("RGB"))
    assert ours == pytest.approx(independent_score(original, data, tmp_path), abs=0.1)


def test_a_small_image_measured_on_fewer_scales_agrees_with_the_package(tmp_path: Path) -> None:
    original = photo(90, 61)  # odd sides, 4 scales: the last row and column of each halving average with themselves
    data = encoded(original, "JPEG", 50)
    ours = ssimulacra2(original, Image.open(io.BytesIO(data)).convert("RGB"))
    assert ours == pytest.approx(independent_score(original, data, tmp_path), abs=0.1)


def test_the_tiled_path_gives_the_in_memory_score(monkeypatch: pytest.MonkeyPatch) -> None:
    original = photo(333, 275)
    distorted = Image.open(io.BytesIO(encoded(original, "JPEG", 60))).convert("RGB")
    in_memory = score_in_bands(original, distorted)
    monkeypatch.setattr(scorer, "IN_MEMORY_PIXELS", 0)
    assert score_in_bands(original, distorted) == pytest.approx(in_memory, abs=1e-6)


def test_one_reference_scores_several_candidates_as_separate_calls() -> None:
    original = photo(300, 260)
    reference = Reference(linear_rgb(original))
    for quality in (20, 80):
        distorted = Image.open(io.BytesIO(encoded(original, "WEBP", quality))).convert("RGB")
        assert reference.score(linear_rgb(distorted)) == pytest.approx(ssimulacra2(original, distorted), abs=1e-9)


def test_identical_images_score_100_and_any_mode_is_taken_as_rgb() -> None:
    image = photo(64, 64)
    assert ssimulacra2(image, image.copy()) == pytest.approx(100.0)
    assert ssimulacra2(image.convert("RGBA"), image) == pytest.approx(100.0)


def test_images_of_different_sizes_or_under_8_px_are_refused() -> None:
    with pytest.raises(ValueError, match="differ in size"):
        ssimulacra2(photo(64, 64), photo(64, 60))
    with pytest.raises(ValueError, match="at least 8 x 8"):
        ssimulacra2(photo(64, 7), photo(64, 7))
    with pytest.raises(ValueError, match="differ in size"):
        Reference(linear_rgb(photo(64, 64))).score(linear_rgb(photo(60, 64)))


def test_without_libvips_the_scorer_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyvips", None)  # `import pyvips` then raises ImportError
    installed_vips.cache_clear()
    try:
        with pytest.raises(InternalError, match="libvips"):
            scorer.check_available()
        with pytest.raises(InternalError, match="give quality instead"):
            convert_image(png(photo(64, 64)), to=ImageFormat.WEBP, target_score=80)
    finally:
        installed_vips.cache_clear()
