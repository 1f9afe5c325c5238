"""targetScore: every answer scores at least the target by the independent `ssimulacra2` package (butteraugli's
distance recorded beside it), the headers say what was chosen, and bad combinations are refused."""

from __future__ import annotations

import io
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from fileapi.convert import deadline
from fileapi.convert.image import (
    ImageResult,
    compress_image,
    convert_image,
    crop_image,
    flip_image,
    resize_image,
    rotate_image,
)
from fileapi.convert.image_io import ImageFormat
from fileapi.convert.pdf import RenderFormat, render_pages
from fileapi.convert.quality_search import (
    AGREEMENT_MARGIN,
    GUESS_RANGE,
    PROXY_FRACTION,
    PROXY_PIXELS,
    SEARCH_ADVICE,
    STANDARD_TABLES_BELOW,
    TILE,
    TUNED,
    Candidates,
    bisect_in_steps,
    bisect_quality,
    encode_with,
    first_guess,
    make_proxy,
    mosaic,
    search_tuned,
)
from fileapi.convert.resampling import resample
from fileapi.convert.ssimulacra2 import score_in_bands, ssimulacra2
from fileapi.errors import InvalidInput, OutOfTime

ssimulacra2_package = pytest.importorskip("ssimulacra2")


def photo(width: int = 320, height: int = 240, sigma: int = 24) -> Image.Image:
    """A photo-like image: smooth noise blobs (of `sigma`) over gradients, with sharp edges (a disc, bars)."""
    from PIL import ImageDraw

    noise = Image.effect_noise((width // 12, height // 12), sigma).resize((width, height), Image.Resampling.BICUBIC)
    gradient = Image.linear_gradient("L").resize((width, height))
    image = Image.merge("RGB", (noise, gradient, Image.blend(noise, gradient, 0.5)))
    draw = ImageDraw.Draw(image)
    draw.ellipse((width // 4, height // 4, width // 2, height // 2), fill=(240, 200, 40))
    for x in range(0, width, 24):
        draw.line((x, height * 3 // 4, x + 12, height), fill=(20, 20, 20), width=2)
    return image


def png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def independent_score(original: Image.Image, result: bytes, tmp: Path) -> float:
    """The `ssimulacra2` package's score of `result` against `original`, from PNG files."""
    reference, distorted = tmp / "original.png", tmp / "distorted.png"
    original.convert("RGB").save(reference)
    Image.open(io.BytesIO(result)).convert("RGB").save(distorted)
    return float(ssimulacra2_package.compute_ssimulacra2(str(reference), str(distorted)))


def butteraugli_distance(tmp: Path) -> float | None:
    """butteraugli's distance between the two files `independent_score` wrote (None when not installed)."""
    if shutil.which("butteraugli") is None:
        return None
    out = subprocess.run(
        ["butteraugli", str(tmp / "original.png"), str(tmp / "distorted.png")], capture_output=True, text=True
    )
    return float(out.stdout.split()[0]) if out.returncode == 0 and out.stdout.strip() else None


def test_ssimulacra2_agrees_with_the_package(tmp_path: Path) -> None:
    original = photo()
    for quality in (30, 70, 90):
        out = io.BytesIO()
        original.save(out, "JPEG", quality=quality)
        ours = ssimulacra2(original, Image.open(io.BytesIO(out.getvalue())).convert("RGB"))
        assert ours == pytest.approx(independent_score(original, out.getvalue(), tmp_path), abs=0.1)


def test_ssimulacra2_of_identical_images_is_100() -> None:
    image = photo(64, 64)
    assert ssimulacra2(image, image.copy()) == pytest.approx(100.0)


OPERATIONS: dict[str, Callable[[bytes, ImageFormat], ImageResult]] = {
    "convert": lambda data, fmt: convert_image(data, to=fmt, target_score=80),
    "resize": lambda data, fmt: resize_image(data, width=320, height=None, fmt=fmt, target_score=80),
    "compress": lambda data, fmt: compress_image(data, fmt=fmt, target_score=80),
    "crop": lambda data, fmt: crop_image(data, x=20, y=10, width=300, height=260, fmt=fmt, target_score=80),
    "rotate": lambda data, fmt: rotate_image(data, degrees=90, fmt=fmt, target_score=80),
    "flip": lambda data, fmt: flip_image(data, direction="vertical", fmt=fmt, target_score=80),
}
# What each operation does to the original, for the reference the answer is scored against.
EXPECTED: dict[str, Callable[[Image.Image], Image.Image]] = {
    "convert": lambda image: image,
    "resize": lambda image: resample(image, (320, 240)),  # Lanczos, through libvips at this shrink
    "compress": lambda image: image,
    "crop": lambda image: image.crop((20, 10, 320, 270)),
    "rotate": lambda image: image.transpose(Image.Transpose.ROTATE_270),
    "flip": lambda image: image.transpose(Image.Transpose.FLIP_TOP_BOTTOM),
}
CASES = [(operation, fmt) for operation in OPERATIONS for fmt in (ImageFormat.JPEG, ImageFormat.WEBP)] + [
    ("convert", ImageFormat.AVIF),
    ("convert", ImageFormat.JXL),
    ("resize", ImageFormat.AVIF),
    ("crop", ImageFormat.JXL),
]


@pytest.mark.parametrize(("operation", "fmt"), CASES)
def test_target_score_80_is_reached(
    operation: str, fmt: ImageFormat, tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    original = photo(400, 300)  # every side of every answer >= 256 px: SSIMULACRA2 measures its 6 scales
    result = OPERATIONS[operation](png(original), fmt)
    score = independent_score(EXPECTED[operation](original), result.data, tmp_path)
    record_property("ssimulacra2", round(score, 2))
    record_property("butteraugli", butteraugli_distance(tmp_path))
    assert result.format is fmt
    assert score >= 80, f"{operation} to {fmt.value}: {score:.2f} (encoder quality {result.encoder_quality})"
    assert result.quality_score is not None and result.quality_score >= 80
    assert abs(result.quality_score - score) < 0.5  # the image is its own proxy: the score is measured on it


def test_headers_say_what_was_chosen() -> None:
    result = convert_image(png(photo()), to=ImageFormat.WEBP, target_score=75)
    headers = result.headers()
    assert 1 <= float(headers["X-Encoder-Quality"]) <= 100
    assert float(headers["X-Quality-Score"]) >= 75
    assert "X-Quality-Score" not in convert_image(png(photo()), to=ImageFormat.WEBP).headers()


def test_a_higher_target_gives_a_larger_file() -> None:
    data = png(photo())
    low = convert_image(data, to=ImageFormat.JPEG, target_score=60)
    high = convert_image(data, to=ImageFormat.JPEG, target_score=90)
    assert len(low.data) < len(high.data)
    assert (low.encoder_quality or 0) < (high.encoder_quality or 0)


def test_a_smooth_jpeg_is_quantised_with_the_flat_table_scaled_by_its_quality() -> None:
    from PIL import ImageFilter

    data = png(photo().filter(ImageFilter.GaussianBlur(2)))  # reaches 80 below the first guess
    result = convert_image(data, to=ImageFormat.JPEG, target_score=80)
    quality = int(result.encoder_quality or 0)  # JPEG's are whole
    assert quality >= 50  # libjpeg's scaling: (200 - 2 x quality) percent of the table from 50 up
    flat = TUNED[ImageFormat.JPEG]["qtables"]
    assert isinstance(flat, list)
    expected = [min(255, max(1, (value * (200 - 2 * quality) + 50) // 100)) for value in flat[0]]  # baseline
    tables = Image.open(io.BytesIO(result.data)).quantization  # type: ignore[attr-defined]
    assert list(tables[0]) == list(tables[1]) == expected
    fixed = Image.open(io.BytesIO(convert_image(data, to=ImageFormat.JPEG, quality=quality).data))
    assert list(fixed.quantization[0]) != expected  # type: ignore[attr-defined]  # a fixed quality: libjpeg's own


def test_a_detailed_jpeg_is_searched_with_libjpeg_tables() -> None:
    image = photo()  # sharp edges: short of the target at the first guess with the flat table
    flat = Candidates(image, ImageFormat.JPEG, icc_profile=None, settings=TUNED[ImageFormat.JPEG])
    assert flat.score_at(82) < 80 - STANDARD_TABLES_BELOW
    quality, found = search_tuned(image, ImageFormat.JPEG, 80, icc_profile=None)
    score, data = found.encodings[quality]
    assert found.settings == {} and score >= 80 + AGREEMENT_MARGIN
    assert data == encode_with(image, ImageFormat.JPEG, quality, None, {})  # as a fixed quality writes it
    assert found.score_at(quality - 1) < 80 + AGREEMENT_MARGIN  # the lowest quality reaching it


def test_the_first_webp_guess_follows_the_image_compressibility() -> None:
    from PIL import ImageFilter

    detailed = photo()
    smooth = detailed.filter(ImageFilter.GaussianBlur(3))  # fewer bits a pixel at JPEG quality 50
    guesses = [first_guess(image, ImageFormat.WEBP, 80) for image in (detailed, smooth)]
    assert guesses[0] < guesses[1]  # WebP's artefacts hide in detail: more bits a pixel, a lower quality
    assert all(abs(guess - 86) <= GUESS_RANGE for guess in guesses)
    assert first_guess(detailed, ImageFormat.WEBP, 90) > guesses[0]
    assert first_guess(detailed, ImageFormat.AVIF, 80) == first_guess(smooth, ImageFormat.AVIF, 80) == 68


@pytest.mark.parametrize(("fmt", "expected"), [(ImageFormat.JXL, 80.5), (ImageFormat.JPEG, 81), (ImageFormat.WEBP, 81)])
def test_jxl_is_searched_in_quarter_qualities(fmt: ImageFormat, expected: float) -> None:
    tried: list[float] = []

    def score_at(quality: float) -> float:  # a score rising with quality, reaching 80.3 at quality 80.3
        tried.append(quality)
        return quality

    assert bisect_in_steps(score_at, fmt, 80.3, start=78, max_calls=12) == expected
    assert all(quality * 4 == int(quality * 4) for quality in tried)
    assert fmt is ImageFormat.JXL or all(quality == int(quality) for quality in tried)


def test_libjxl_takes_the_fractional_quality() -> None:
    image = photo()
    sizes = [
        len(encode_with(image, ImageFormat.JXL, quality, None, TUNED[ImageFormat.JXL])) for quality in (78, 78.5, 79)
    ]
    assert sizes[0] < sizes[1] < sizes[2]


def test_a_jxl_answer_says_its_fractional_quality() -> None:
    result = convert_image(png(photo()), to=ImageFormat.JXL, target_score=80)
    quality = result.encoder_quality or 0
    assert 1 <= quality <= 100 and quality * 4 == int(quality * 4)
    assert float(result.headers()["X-Encoder-Quality"]) == quality
    assert "." not in convert_image(png(photo()), to=ImageFormat.JPEG, target_score=80).headers()["X-Encoder-Quality"]


def test_an_animation_keeps_its_frames_at_the_chosen_quality() -> None:
    frames = [photo(96, 64, sigma) for sigma in (20, 30, 40)]
    out = io.BytesIO()
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:], duration=100, loop=0)
    result = convert_image(out.getvalue(), to=ImageFormat.WEBP, target_score=80)
    headers = result.headers()
    assert headers["X-Animation"] == "kept" and headers["X-Animation-Frames"] == "3"
    assert "X-Encoder-Quality" in headers
    assert getattr(Image.open(io.BytesIO(result.data)), "n_frames", 1) == 3


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda data: convert_image(data, to=ImageFormat.JPEG, quality=80, target_score=80), "not both"),
        (lambda data: convert_image(data, to=ImageFormat.PNG, target_score=80), "lossless"),
        (lambda data: convert_image(data, to=ImageFormat.JPEG, target_score=99), "30..95"),
        (lambda data: convert_image(data, to=ImageFormat.JPEG, target_score=10), "30..95"),
        (lambda data: resize_image(data, width=10, height=None, target_score=80), "lossless"),  # PNG kept
        (lambda data: compress_image(data), "quality"),
    ],
)
def test_bad_target_scores_are_refused(call: Callable[[bytes], ImageResult], message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        call(png(photo(64, 64)))


def test_bisection_finds_the_lowest_quality_in_few_steps() -> None:
    calls: list[int] = []

    def score_at(quality: int) -> float:
        calls.append(quality)
        return 30 + quality * 0.6  # reaches 80 at 83.33: the lowest integer is 84

    assert bisect_quality(score_at, 80, start=70, quality_per_point=1.2) == 84
    assert len(calls) <= 4


def test_bisection_gives_the_highest_quality_when_the_target_is_out_of_reach() -> None:
    assert bisect_quality(lambda quality: quality * 0.5, 90, start=80, quality_per_point=1.0) == 100


def test_a_large_image_is_searched_on_a_mosaic_of_full_resolution_tiles() -> None:
    large = photo(1600, 1200)
    proxy, is_whole = make_proxy(large)
    assert not is_whole
    assert proxy.width % TILE == 0 and proxy.height % TILE == 0
    assert proxy.width * proxy.height <= min(PROXY_PIXELS, PROXY_FRACTION * large.width * large.height)
    columns, rows = proxy.width // TILE, proxy.height // TILE  # the first tile: the grid's top left cell, 16 px aligned
    left, top = int((1600 - TILE) * 0.5 / columns) // 16 * 16, int((1200 - TILE) * 0.5 / rows) // 16 * 16
    assert proxy.crop((0, 0, TILE, TILE)).tobytes() == large.crop((left, top, left + TILE, top + TILE)).tobytes()
    small = photo(320, 240)
    assert make_proxy(small) == (small, True)


def test_a_mosaic_of_a_small_image_is_one_tile() -> None:
    small = photo(320, 240)
    assert mosaic(small, 0.25).size == (TILE, 240)


@pytest.mark.parametrize("fmt", [RenderFormat.JPEG, RenderFormat.WEBP, RenderFormat.JXL])
def test_render_page_reaches_the_target_score(fmt: RenderFormat, tmp_path: Path) -> None:
    out = io.BytesIO()
    photo(400, 300).save(out, "PDF", resolution=100)
    reference = render_pages(out.getvalue(), fmt=RenderFormat.PNG, dpi=100)[0]
    page = render_pages(out.getvalue(), fmt=fmt, dpi=100, target_score=80)[0]
    original = Image.open(io.BytesIO(reference.bytes)).convert("RGB")
    score = independent_score(original, page.bytes, tmp_path)
    assert score >= 80
    assert page.quality_score is not None and page.quality_score >= 80 and page.encoder_quality is not None


def test_render_page_refuses_a_target_score_for_png() -> None:
    out = io.BytesIO()
    photo(64, 64).save(out, "PDF")
    with pytest.raises(InvalidInput, match="lossless"):
        render_pages(out.getvalue(), fmt=RenderFormat.PNG, target_score=80)


def test_scoring_in_bands_gives_the_whole_image_score() -> None:
    original = photo(333, 275)  # odd sides: the last row and column of each scale average with themselves
    out = io.BytesIO()
    original.save(out, "JPEG", quality=60)
    distorted = Image.open(io.BytesIO(out.getvalue())).convert("RGB")
    assert score_in_bands(original, distorted) == pytest.approx(ssimulacra2(original, distorted), abs=1e-6)


def test_an_image_over_the_proxy_size_reaches_the_target_on_the_whole_image(tmp_path: Path) -> None:
    original = photo(1300, 900)  # 1.17 MP: searched on a mosaic, then on the whole image
    result = convert_image(png(original), to=ImageFormat.JPEG, target_score=80)
    score = independent_score(original, result.data, tmp_path)
    assert score >= 80
    assert result.quality_score == pytest.approx(score, abs=0.05)


class Clock:
    """Clocks that only the search's encodes move, by `wall` seconds each, and `cpu` seconds of CPU time (of all
    threads: libaom encodes on two)."""

    def __init__(self, wall: float, cpu: float) -> None:
        self.now = self.cpu_now = 1000.0
        self.wall, self.cpu, self.encodes = wall, cpu, 0
        self.sizes: list[tuple[int, int]] = []  # of the images encoded

    def monotonic(self) -> float:
        return self.now

    def process_time(self) -> float:
        return self.cpu_now

    def encoded(self, image: Image.Image) -> None:
        self.now += self.wall
        self.cpu_now += self.cpu
        self.encodes += 1
        self.sizes.append(image.size)


def fake_clock(monkeypatch: pytest.MonkeyPatch, *, wall: float, cpu: float) -> Clock:
    """Each encode of a search takes `wall` s by `time.monotonic` and `cpu` s by `time.process_time`, which the
    budget and the search's pace read."""
    from fileapi.convert import quality_search

    fake = Clock(wall, cpu)
    real_encode = quality_search.encode_with

    def timed_encode(*args: Any, **kwargs: Any) -> bytes:
        fake.encoded(args[0])
        return real_encode(*args, **kwargs)

    monkeypatch.setattr(time, "monotonic", fake.monotonic)
    monkeypatch.setattr(time, "process_time", fake.process_time)
    monkeypatch.setattr(quality_search, "encode_with", timed_encode)
    return fake


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    return fake_clock(monkeypatch, wall=2.0, cpu=2.0)


def test_a_search_stops_before_a_step_its_time_left_would_not_fit(clock: Clock) -> None:
    # GIVEN a 5 s budget and encodes of 2 s each
    with deadline.budget(5.0), pytest.raises(OutOfTime) as stopped:
        # WHEN a search asks for a third encode
        candidates = Candidates(photo(), ImageFormat.JPEG, icc_profile=None, settings={})
        for quality in (50, 60, 70):
            candidates.score_at(quality)
    # THEN it stops before the third encode, which would end past the budget, not in the middle of it
    assert clock.encodes == 2
    assert clock.now <= 1005.0
    assert stopped.value.message == f"the conversion would not finish within the 5 s limit; {SEARCH_ADVICE}"
    assert stopped.value.http_status == 413


def test_a_search_stops_before_a_step_its_cpu_time_left_would_not_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN a 5 s budget and encodes of 1 s on two threads (2 s of CPU time, which a worker's limit counts)
    clock = fake_clock(monkeypatch, wall=1.0, cpu=2.0)
    with deadline.budget(5.0), pytest.raises(OutOfTime, match="would not finish within the 5 s limit"):
        candidates = Candidates(photo(), ImageFormat.AVIF, icc_profile=None, settings={})
        for quality in (50, 60, 70, 80):
            candidates.score_at(quality)
    # THEN it stops before the third encode by the CPU time, with wall time to spare
    assert clock.encodes == 2
    assert clock.now == 1002.0 and clock.cpu_now <= 1005.0


def test_a_search_within_its_budget_is_not_stopped(clock: Clock) -> None:
    with deadline.budget(60.0):
        result = convert_image(png(photo()), to=ImageFormat.JPEG, target_score=80)
    assert result.quality_score is not None and result.quality_score >= 80
    assert 1 <= clock.encodes <= 6


def test_the_whole_image_search_starts_at_the_mosaic_pace(clock: Clock) -> None:
    # GIVEN an image over the proxy size: its mosaic (0.25 of it) is searched first, at 2 s an encode
    image = photo(1300, 900)
    # WHEN the budget leaves too little for the whole image's reference and one encode at the mosaic's pace (4x its
    # pixels: 2 x 8 s and the margin)
    with deadline.budget(9.0), pytest.raises(OutOfTime, match="targetScore encodes and scores"):
        convert_image(png(image), to=ImageFormat.JPEG, target_score=80)
    # THEN it stopped before the whole image's reference: only the mosaic was encoded
    assert clock.encodes >= 1
    assert image.size not in clock.sizes
    assert clock.now <= 1009.0
