"""The encoder quality that reaches a SSIMULACRA2 target: the smallest file whose score is at least it.

Scores rise with quality; the search starts from a guess per format, then interpolates between the
qualities known to fall short and to reach the target, a few encodes in all, each scored on the whole image.
Past PROXY_ABOVE pixels a mosaic of full-resolution tiles spread over the image (aligned to 16 px, the JPEG
and WebP block grid, so that each encodes as it does in the whole image) is searched first, its target raised
by PROXY_MARGIN, and the whole image's search starts from its choice, so that the score returned is the whole
image's (up to VERIFY_PIXELS; past it the mosaic's choice and score are the answer). No proxy stands in for the whole
image below that: on the corpus photographs (0.15-0.9 MP) a mosaic's score differed from the whole image's
at the same quality by 1.0-1.3 points (standard deviation per format) and a 2x downscaled image's by 2.5-3.3,
where the answers must land within [target, target + 4]. The answer is encoded with the format's TUNED
settings (the same encoders, fewer bytes at the same score than the settings of a fixed quality).
"""

from __future__ import annotations

import io
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fileapi.convert import deadline
from fileapi.convert.image_io import (
    ImageFormat,
    check_encoded,
    check_output_size,
    prepare_for,
    save_image,
    save_options,
)
from fileapi.convert.quality_options import check_target_score

if TYPE_CHECKING:
    from PIL import Image

    from fileapi.convert.ssimulacra2 import Reference

# Up to PROXY_ABOVE pixels the image is its own proxy; past it a mosaic of PROXY_FRACTION of it, at most
# PROXY_PIXELS, picks the quality the whole image's search starts from, in at most PROXY_ENCODES encodes.
PROXY_ABOVE = 1_000_000
PROXY_FRACTION = 0.25
PROXY_PIXELS = 500_000
PROXY_ENCODES = 3
TILE = 256  # px, a multiple of 16: 128 px tiles transferred worse (sd 1.5-2.0 points against 1.0-1.3)
# Score points added to the target on a mosaic: its score ran 1.3-2.0 points over the whole image's at the same
# quality on the corpus photographs (the mean per format; bench/quality.py prints it).
PROXY_MARGIN = 1.5
# Score points added to every target: our scorer and the `ssimulacra2` package differed by up to 0.012 on 120
# corpus encodings (24 photographs, 4 formats), so an answer at the target by ours is at it by the package too.
AGREEMENT_MARGIN = 0.03
MAX_ENCODES = 6  # encodes per search
# Up to this size the search goes on from the mosaic's choice on the whole image (scored in bands, 6 bytes
# a pixel), at most VERIFY_ENCODES scorings: the mosaic of a 3 MP corpus photo scored 81.3-82.4 where the
# whole image scored 77.7-78.2 at the same quality (bench/quality.py).
VERIFY_PIXELS = 16_000_000
VERIFY_ENCODES = 4
# Per format: the step of encoder quality searched (1 where not listed). libjxl takes a float quality (its
# distance 0.1 + (100 - quality) x 0.09): between two whole qualities the size of a corpus photograph grew by
# 2.8% (sanyo-vpcsx550, effort 4). Quarter steps took the 24 bench photographs at score 80 from 0.830x to 0.826x
# the bytes of one quality for all, in as many encodes (halves 0.828x, tenths 0.827x).
QUALITY_STEP: dict[ImageFormat, float] = {ImageFormat.JXL: 0.25}
# Per format: the median quality reaching score 80 on the corpus photographs with the TUNED settings (the first
# guess), and the change of quality per score point. The image's detail (mean luma gradient) did not predict it better.
_GUESS = {
    ImageFormat.JPEG: (82.0, 1.2),
    ImageFormat.WEBP: (86.0, 1.3),
    ImageFormat.AVIF: (68.0, 1.2),
    ImageFormat.JXL: (80.0, 1.1),
}
# For WebP, the quality reaching score 80 predicted from the image's compressibility instead: intercept, per bit
# a pixel of a JPEG at quality 50 and per ratio of its size at quality 90 to that at 50 (two encodes with libjpeg's
# tables, 0.1 of a scoring). Least squares over the 24 corpus photographs; left out one at a time, the prediction
# missed by 1.9 qualities (standard deviation) where the median did by 2.7: 2.08 scorings a photograph instead
# of 2.58. For AVIF it was no better (3.1 against 3.2); for JPEG (3.0 against 7.2) it moved the choice of tables
# below, to 0.803x the bytes (bench/quality.py's goal: 0.8x); JPEG XL's (2.7 against 4.0) waits for its encoder
# settings to settle.
_PREDICTED = {ImageFormat.WEBP: (90.26, -6.95, 0.81)}
GUESS_RANGE = 15  # qualities a prediction may stray from the median, however unlike a photograph the image is
# The ImageMagick quantisation table (N. Robidoux's; mozjpeg's default), natural order, for luma and chroma.
_FLAT_TABLE = (
    16, 16, 16, 18, 25, 37, 56, 85, 16, 17, 20, 27, 34, 40, 53, 75, 16, 20, 24, 31, 43, 62, 91, 135,
    18, 27, 31, 40, 53, 74, 106, 156, 25, 34, 43, 53, 69, 94, 131, 189, 37, 40, 62, 74, 94, 124, 169, 238,
    56, 53, 91, 106, 131, 169, 226, 311, 85, 75, 135, 156, 189, 238, 311, 418,
)  # fmt: skip
# Encoder settings of a targetScore answer beside those of a fixed quality (image_io.save_options): the same
# encoders, smaller at the same score on corpus photographs: JPEG, libjpeg-turbo with the table above scaled by
# the quality (-5% bytes at score 80 on 6 photographs); AVIF, libaom at speed 6 instead of 9 (-9%, 2.4-3.8x the
# encode time); JPEG XL, effort 4 instead of 3: on the 24 bench photographs at score 80, -0.3% in whole qualities,
# equal in quarter ones; effort 5, 6, 7, 8 +2.0..2.4% (4-30x the time), 1 and 2 +7.8%; the plugin's other
# settings cost more (decoding_speed 1 +3.4%, use_original_profile 2.7x the bytes).
TUNED: dict[ImageFormat, dict[str, object]] = {
    ImageFormat.JPEG: {"qtables": [list(_FLAT_TABLE), list(_FLAT_TABLE)]},
    ImageFormat.AVIF: {"speed": 6},
    ImageFormat.JXL: {"effort": 4},
}
# A JPEG scoring more than STANDARD_TABLES_BELOW points under the target at the first guess with the flat table
# has fine detail, which libjpeg's own tables keep in fewer bytes: it is searched with them instead, starting
# STANDARD_TABLES_LOWER qualities under the flat table's expected quality (their median distance). On the 24
# corpus photographs this gave 0.4% more bytes than searching both tables and keeping the smaller, in 3.75
# scorings a photograph instead of 4.67 (bench/quality.py).
STANDARD_TABLES_BELOW = 1.5
STANDARD_TABLES_LOWER = 3
# A search stops before a step (an encode scored) that the conversion's time left would not fit, at PACE_MARGIN times
# the pace of its last one (wall and CPU seconds per pixel: libaom encodes on two threads), rather than be stopped in
# the middle of it: a 16 MP AVIF's steps take 10 s and more, and the answer then says what to send instead. The
# whole image's reference is begun only with time for it and one step (it costs less than one). Its steps ran slower
# per pixel than the mosaic's, the scoring of an image over 4 MP in strips (ssimulacra2.IN_MEMORY_PIXELS: 16 MP
# 6.0 s, 1.2x the pace of 0.5 MP).
PACE_MARGIN = 1.25
SEARCH_ADVICE = (
    "targetScore encodes and scores the image several times: give quality instead (one encode), or send a smaller image"
)
MAX_SLOPE = 10.0  # quality per score point at most, however flat two measured scores are
CLOSE_ENOUGH = 0.5  # score points: a quality reaching the target by less than this ends the search


@dataclass(frozen=True)
class Pace:
    """Seconds per pixel of a search's step: of wall time, and of the CPU time of all the process's threads."""

    wall: float
    cpu: float


@dataclass(frozen=True)
class Chosen:
    """The encoding chosen: its bytes, the encoder quality (1..100, a whole number but for JPEG XL: see
    QUALITY_STEP) and the SSIMULACRA2 score it reached on the whole image (on the mosaic for an image over
    VERIFY_PIXELS)."""

    data: bytes
    quality: float
    score: float


def encode_to_score(image: Image.Image, fmt: ImageFormat, *, target_score: float, icc_profile: bytes | None) -> Chosen:
    """`image` encoded as `fmt` at the lowest quality whose SSIMULACRA2 score is at least `target_score`
    (the highest quality when none reaches it), with the format's TUNED encoder settings (see `search_tuned`).

    :param target_score: 30..95 (70 high quality, 80 not noticeable side by side, 90 visually lossless).
    :raises InvalidInput: a lossless `fmt` or a target out of bounds.
    :raises TooLarge: the answer is over the response limit.
    """
    check_target_score(target_score, None, fmt)
    check_output_size(*image.size)
    prepared, icc_profile = prepare_for(image, fmt, icc_profile)
    proxy, is_whole = make_proxy(prepared)
    if is_whole:
        quality, found = search_tuned(prepared, fmt, target_score, icc_profile=icc_profile)
        score, data = found.encodings[quality]
        check_encoded(prepared, fmt, data)
        return Chosen(data, quality, score)
    quality, found = search_tuned(proxy, fmt, target_score + PROXY_MARGIN, icc_profile=None, max_calls=PROXY_ENCODES)
    if prepared.width * prepared.height > VERIFY_PIXELS:
        data = encode_with(prepared, fmt, quality, icc_profile, found.settings)
        check_encoded(prepared, fmt, data)
        return Chosen(data, quality, found.encodings[quality][0])
    whole = Candidates(prepared, fmt, icc_profile=icc_profile, settings=found.settings, pace=found.pace)
    quality = bisect_in_steps(
        whole.score_at, fmt, target_score + AGREEMENT_MARGIN, start=quality, max_calls=VERIFY_ENCODES
    )
    score, data = whole.encodings[quality]
    check_encoded(prepared, fmt, data)
    return Chosen(data, quality, score)


def search_quality(
    image: Image.Image, fmt: ImageFormat, target_score: float, *, icc_profile: bytes | None
) -> tuple[float, float, bytes]:
    """(quality, score, bytes): the lowest quality of `fmt` scoring at least `target_score` on `image`, with
    the settings of a fixed quality (as an animation's frames are written)."""
    candidates = Candidates(image, fmt, icc_profile=icc_profile, settings={})
    quality = _lowest(candidates, target_score, start=first_guess(image, fmt, target_score))
    score, data = candidates.encodings[quality]
    return quality, score, data


def search_tuned(
    image: Image.Image,
    fmt: ImageFormat,
    target_score: float,
    *,
    icc_profile: bytes | None,
    max_calls: int = MAX_ENCODES,
) -> tuple[float, Candidates]:
    """(quality, its candidates): the lowest quality of `fmt` scoring at least `target_score` on `image` with
    the TUNED settings, from `first_guess`; for a JPEG scoring more than STANDARD_TABLES_BELOW under the target
    at the first guess with the flat table, with libjpeg's own tables instead."""
    candidates = Candidates(image, fmt, icc_profile=icc_profile, settings=TUNED.get(fmt, {}))
    guess = first_guess(image, fmt, target_score)
    if fmt is ImageFormat.JPEG:
        first = candidates.score_at(guess)
        if first < target_score - STANDARD_TABLES_BELOW:
            standard = candidates.with_settings({})
            start = guess + round((target_score - first) * _GUESS[fmt][1]) - STANDARD_TABLES_LOWER
            return _lowest(standard, target_score, start=start, max_calls=max_calls), standard
    return _lowest(candidates, target_score, start=guess, max_calls=max_calls), candidates


def first_guess(image: Image.Image, fmt: ImageFormat, target_score: float) -> int:
    """The quality of `fmt` tried first for `target_score` on `image`: the median quality of the corpus
    photographs at score 80, or for WebP one predicted from the image's compressibility (within
    GUESS_RANGE of the median), moved by the format's change of quality per score point."""
    base, per_point = _GUESS[fmt]
    if fmt in _PREDICTED:
        intercept, per_bit, per_ratio = _PREDICTED[fmt]
        bits, ratio = _compressibility(image)
        predicted = intercept + per_bit * bits + per_ratio * ratio
        base = min(base + GUESS_RANGE, max(base - GUESS_RANGE, predicted))
    return min(100, max(1, round(base + per_point * (target_score - 80))))


def _compressibility(image: Image.Image) -> tuple[float, float]:
    """(bits a pixel of `image` as a JPEG at quality 50, the ratio of its size at quality 90 to that)."""
    rgb = image if image.mode in ("RGB", "L") else image.convert("RGB")
    low = len(encode_with(rgb, ImageFormat.JPEG, 50, None, {}))
    high = len(encode_with(rgb, ImageFormat.JPEG, 90, None, {}))
    return low * 8 / (image.width * image.height), high / low


def _lowest(candidates: Candidates, target_score: float, *, start: float, max_calls: int = MAX_ENCODES) -> float:
    return bisect_in_steps(
        candidates.score_at,
        candidates.fmt,
        target_score + AGREEMENT_MARGIN,
        start=start,
        max_calls=max_calls,
    )


def bisect_in_steps(
    score_at: Callable[[float], float], fmt: ImageFormat, target: float, *, start: float, max_calls: int = MAX_ENCODES
) -> float:
    """bisect_quality over the qualities of `fmt`'s QUALITY_STEP."""
    step = QUALITY_STEP.get(fmt, 1)
    found = bisect_quality(
        lambda steps: score_at(steps * step),
        target,
        start=round(start / step),
        quality_per_point=_GUESS[fmt][1] / step,
        low=round(1 / step),
        high=round(100 / step),
        max_calls=max_calls,
    )
    return found * step


class Candidates:
    """One image's encodings with one set of encoder settings at the qualities tried, each with its score
    against the image (whose XYB pyramid is built once), and the pace of the last step (SEARCH_ADVICE)."""

    def __init__(
        self,
        image: Image.Image,
        fmt: ImageFormat,
        *,
        icc_profile: bytes | None,
        settings: Mapping[str, object],
        reference: Reference | None = None,
        pace: Pace | None = None,
    ) -> None:
        from fileapi.convert.ssimulacra2 import Reference, linear_rgb

        self.fmt, self.settings = fmt, settings
        self._image, self._icc_profile = image, icc_profile
        self._pixels = image.width * image.height
        self.pace = pace or Pace(0.0, 0.0)
        if reference is None:
            self._check_ahead(steps=2)
            reference = Reference(linear_rgb(image))
        self._reference = reference
        self.encodings: dict[float, tuple[float, bytes]] = {}  # quality: (score, bytes)

    def with_settings(self, settings: Mapping[str, object]) -> Candidates:
        """The same image's candidates with other settings (the reference shared)."""
        return Candidates(
            self._image,
            self.fmt,
            icc_profile=self._icc_profile,
            settings=settings,
            reference=self._reference,
            pace=self.pace,
        )

    def score_at(self, quality: float) -> float:
        """The score of the image encoded at `quality` (1..100), encoded and scored once.

        :raises OutOfTime: the conversion's time left would not fit the step (SEARCH_ADVICE).
        """
        from fileapi.convert.ssimulacra2 import linear_rgb

        if quality not in self.encodings:
            self._check_ahead(steps=1)
            started, cpu_started = time.monotonic(), time.process_time()
            data = encode_with(self._image, self.fmt, quality, self._icc_profile, self.settings)
            self.encodings[quality] = (self._reference.score(linear_rgb(_decoded(data))), data)
            wall, cpu = time.monotonic() - started, time.process_time() - cpu_started
            self.pace = Pace(wall / self._pixels, cpu / self._pixels)
        return self.encodings[quality][0]

    def _check_ahead(self, *, steps: int) -> None:
        """:raises OutOfTime: the time left would not fit `steps` steps at the last one's pace (PACE_MARGIN)."""
        scale = steps * PACE_MARGIN * self._pixels
        deadline.check_ahead(scale * self.pace.wall, scale * self.pace.cpu, SEARCH_ADVICE)


def encode_with(
    image: Image.Image, fmt: ImageFormat, quality: float, icc_profile: bytes | None, settings: Mapping[str, object]
) -> bytes:
    """`image` (prepared for `fmt`) encoded at `quality` (a whole number but for JPEG XL: QUALITY_STEP) with
    `settings` over those of a fixed quality."""
    options = save_options(image, fmt, math.ceil(quality), icc_profile)
    if fmt is ImageFormat.JXL:  # libjxl's float quality; 100 (distance 0) only in its lossless mode
        options.update(quality=quality, lossless=quality == 100)
    options.update(settings)
    return save_image(image, fmt, options)


def bisect_quality(
    score_at: Callable[[int], float],
    target: float,
    *,
    start: int,
    quality_per_point: float,
    low: int = 1,
    high: int = 100,
    max_calls: int = MAX_ENCODES,
) -> int:
    """The lowest quality in low..high with score_at(quality) >= target, scores taken as rising with
    quality: from `start`, steps of the expected slope (the measured one once two qualities fall on one side of
    the target) until the target is bracketed, then interpolation
    between the bracket's ends (at most `max_calls` calls, and one more for `high` when none reached the
    target); `high` when no quality reaches the target."""
    below: tuple[int, float] | None = None  # the highest quality known to fall short
    above: tuple[int, float] | None = None  # the lowest quality known to reach the target
    slope = quality_per_point  # quality per score point; from two qualities on one side once known
    quality = min(high, max(low, start))
    for _ in range(max_calls):
        score = score_at(quality)
        side = above if score >= target else below
        if side is not None and score != side[1]:
            slope = min(MAX_SLOPE, max(quality_per_point, (quality - side[0]) / (score - side[1])))
        if score >= target:
            above = (quality, score)
        else:
            below = (quality, score)
        floor = below[0] if below else low - 1
        ceiling = above[0] if above else high + 1
        if ceiling - floor <= 1 or target <= score < target + CLOSE_ENOUGH:
            break
        if below and above:
            fraction = (target - below[1]) / max(above[1] - below[1], 1e-6)
            quality = below[0] + math.ceil(fraction * (above[0] - below[0]))
        elif above:
            quality = above[0] - max(1, math.floor((above[1] - target) * slope))
        elif below:
            quality = below[0] + max(1, math.ceil((target - below[1]) * slope * 1.2))
        quality = min(ceiling - 1, max(floor + 1, quality))
    if above is None:
        if below is None or below[0] != high:
            score_at(high)
        return high
    return above[0]


def make_proxy(image: Image.Image) -> tuple[Image.Image, bool]:
    """(proxy, is_whole): the image itself when it has at most PROXY_ABOVE pixels, else its `mosaic` covering
    PROXY_FRACTION of it, at most PROXY_PIXELS."""
    pixels = image.width * image.height
    if pixels <= PROXY_ABOVE or min(image.size) < TILE:
        return image, True
    return mosaic(image, min(PROXY_FRACTION, PROXY_PIXELS / pixels)), False


def mosaic(image: Image.Image, fraction: float) -> Image.Image:
    """About `fraction` (0..1] of `image` as a mosaic of TILE x TILE full-resolution tiles from a grid spread
    evenly over it (aligned to 16 px), at least one tile; tiles overlap where a side is short of the grid."""
    from PIL import Image

    side = math.sqrt(fraction) / TILE
    columns, rows = max(1, round(image.width * side)), max(1, round(image.height * side))
    tile_width, tile_height = min(TILE, image.width), min(TILE, image.height)
    joined = Image.new(image.mode, (tile_width * columns, tile_height * rows))
    for row in range(rows):
        for column in range(columns):
            left = _aligned((image.width - tile_width) * (column + 0.5) / columns)
            top = _aligned((image.height - tile_height) * (row + 0.5) / rows)
            box = (left, top, left + tile_width, top + tile_height)
            joined.paste(image.crop(box), (column * tile_width, row * tile_height))
    return joined


def _aligned(position: float) -> int:
    return int(position) // 16 * 16


def _decoded(data: bytes) -> Image.Image:
    from PIL import Image

    decoded = Image.open(io.BytesIO(data))
    decoded.load()
    return decoded
