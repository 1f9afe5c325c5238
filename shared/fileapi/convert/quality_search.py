"""The encoder quality that reaches a SSIMULACRA2 target: the smallest file whose score is at least it.

The search runs on a proxy: the whole image when it has at most PROXY_PIXELS, else a mosaic of
full-resolution tiles spread over it (tiles aligned to 16 px, the JPEG and WebP block grid, so that
each encodes as it does in the whole image). Scores rise with quality; the search starts from a guess
per format, then interpolates between the qualities known to fall short and to reach the target, a few
encodes in all. On a mosaic the target is raised by PROXY_MARGIN, and the choice is then scored on the
whole image and raised while it falls short (up to VERIFY_PIXELS), so the score returned is the whole
image's. The answer is encoded with the format's TUNED settings (the same encoders, fewer bytes at the same
score than the settings of a fixed quality).
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fileapi.convert.image_io import (
    ImageFormat,
    check_encoded,
    check_output_size,
    prepare_for,
    save_image,
    save_options,
)
from fileapi.errors import InvalidInput

if TYPE_CHECKING:
    from PIL import Image

    from fileapi.convert.ssimulacra2 import Reference

MIN_TARGET_SCORE = 30
MAX_TARGET_SCORE = 95
LOSSY = frozenset({ImageFormat.JPEG, ImageFormat.WEBP, ImageFormat.AVIF, ImageFormat.JXL})
PROXY_PIXELS = 1_000_000  # at most this many pixels are searched on: up to 1 MP the image is its own proxy
TILE = 128  # px, a multiple of 16
PROXY_MARGIN = 1.0  # score points added to the target on a mosaic
# Score points added to every target: our scorer and the `ssimulacra2` package differed by up to 0.012 on 120
# corpus encodings (24 photographs, 4 formats), so an answer at the target by ours is at it by the package too.
AGREEMENT_MARGIN = 0.03
MAX_ENCODES = 6  # proxy encodes per search; the full image is encoded once more
# Up to this size the search goes on from the mosaic's choice on the whole image (scored in bands, 6 bytes
# a pixel), at most VERIFY_ENCODES scorings: the mosaic of a 3 MP corpus photo scored 81.3-81.9 where the
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
# A JPEG whose search with the flat table ends more than this many qualities over the first guess has fine
# detail, which libjpeg's own tables kept in fewer bytes at score 80 on 4 of the 5 corpus photographs measured:
# it is searched with them too, from STANDARD_TABLES_LOWER qualities lower (their median distance), and the
# smaller answer kept.
STANDARD_TABLES_ABOVE = 1
STANDARD_TABLES_LOWER = 3
MAX_SLOPE = 10.0  # quality per score point at most, however flat two measured scores are
CLOSE_ENOUGH = 0.5  # score points: a quality reaching the target by less than this ends the search


@dataclass(frozen=True)
class Chosen:
    """The encoding chosen: its bytes, the encoder quality (1..100, a whole number but for JPEG XL: see
    QUALITY_STEP) and the SSIMULACRA2 score it reached on the whole image (on the mosaic for an image over
    VERIFY_PIXELS)."""

    data: bytes
    quality: float
    score: float


def check_target_score(target_score: float | None, quality: int | None, fmt: ImageFormat | None) -> None:
    """Refuse a target out of 30..95, one given with a quality, or one for a lossless output.

    :raises InvalidInput: saying which.
    :raises InternalError: a target where libvips (the scorer's) is not installed.
    """
    if target_score is None:
        return
    if not MIN_TARGET_SCORE <= target_score <= MAX_TARGET_SCORE:
        raise InvalidInput(f"targetScore must be {MIN_TARGET_SCORE}..{MAX_TARGET_SCORE}, not {target_score}")
    if quality is not None:
        raise InvalidInput("give quality or targetScore, not both")
    if fmt is not None and fmt not in LOSSY:
        names = ", ".join(sorted(f.value for f in LOSSY))
        raise InvalidInput(f"targetScore applies to lossy outputs ({names}), not {fmt.value}: it is lossless")
    from fileapi.convert.ssimulacra2 import check_available

    check_available()


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
    quality, found = search_tuned(proxy, fmt, target_score + PROXY_MARGIN, icc_profile=None)
    if prepared.width * prepared.height > VERIFY_PIXELS:
        data = encode_with(prepared, fmt, quality, icc_profile, found.settings)
        check_encoded(prepared, fmt, data)
        return Chosen(data, quality, found.encodings[quality][0])
    whole = Candidates(prepared, fmt, icc_profile=icc_profile, settings=found.settings)
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
    quality = _lowest(candidates, target_score)
    score, data = candidates.encodings[quality]
    return quality, score, data


def search_tuned(
    image: Image.Image, fmt: ImageFormat, target_score: float, *, icc_profile: bytes | None
) -> tuple[float, Candidates]:
    """(quality, its candidates): the lowest quality of `fmt` scoring at least `target_score` on `image` with
    the TUNED settings; for a JPEG needing more than STANDARD_TABLES_ABOVE qualities over the first guess with
    the flat table, also with libjpeg's own tables, the smaller answer kept."""
    candidates = Candidates(image, fmt, icc_profile=icc_profile, settings=TUNED.get(fmt, {}))
    quality = _lowest(candidates, target_score)
    if fmt is ImageFormat.JPEG and quality > _first_guess(fmt, target_score) + STANDARD_TABLES_ABOVE:
        standard = candidates.with_settings({})
        other = _lowest(standard, target_score, start=quality - STANDARD_TABLES_LOWER)
        if len(standard.encodings[other][1]) < len(candidates.encodings[quality][1]):
            return other, standard
    return quality, candidates


def _first_guess(fmt: ImageFormat, target_score: float) -> int:
    base, per_point = _GUESS[fmt]
    return round(base + per_point * (target_score - 80))


def _lowest(candidates: Candidates, target_score: float, *, start: float | None = None) -> float:
    return bisect_in_steps(
        candidates.score_at,
        candidates.fmt,
        target_score + AGREEMENT_MARGIN,
        start=_first_guess(candidates.fmt, target_score) if start is None else start,
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
    against the image (whose XYB pyramid is built once)."""

    def __init__(
        self,
        image: Image.Image,
        fmt: ImageFormat,
        *,
        icc_profile: bytes | None,
        settings: Mapping[str, object],
        reference: Reference | None = None,
    ) -> None:
        from fileapi.convert.ssimulacra2 import Reference, linear_rgb

        self.fmt, self.settings = fmt, settings
        self._image, self._icc_profile = image, icc_profile
        self._reference = reference or Reference(linear_rgb(image))
        self.encodings: dict[float, tuple[float, bytes]] = {}  # quality: (score, bytes)

    def with_settings(self, settings: Mapping[str, object]) -> Candidates:
        """The same image's candidates with other settings (the reference shared)."""
        return Candidates(
            self._image, self.fmt, icc_profile=self._icc_profile, settings=settings, reference=self._reference
        )

    def score_at(self, quality: float) -> float:
        """The score of the image encoded at `quality` (1..100), encoded and scored once."""
        from fileapi.convert.ssimulacra2 import linear_rgb

        if quality not in self.encodings:
            data = encode_with(self._image, self.fmt, quality, self._icc_profile, self.settings)
            self.encodings[quality] = (self._reference.score(linear_rgb(_decoded(data))), data)
        return self.encodings[quality][0]


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
    """(proxy, is_whole): the image itself when it has at most PROXY_PIXELS, else a square mosaic of
    TILE x TILE full-resolution tiles from a grid spread evenly over it (aligned to 16 px)."""
    from PIL import Image

    if image.width * image.height <= PROXY_PIXELS or min(image.size) < TILE:
        return image, True
    per_side = max(1, math.isqrt(PROXY_PIXELS // (TILE * TILE)))
    mosaic = Image.new(image.mode, (TILE * per_side, TILE * per_side))
    for row in range(per_side):
        for column in range(per_side):
            left = _aligned((image.width - TILE) * (column + 0.5) / per_side)
            top = _aligned((image.height - TILE) * (row + 0.5) / per_side)
            mosaic.paste(image.crop((left, top, left + TILE, top + TILE)), (column * TILE, row * TILE))
    return mosaic, False


def _aligned(position: float) -> int:
    return int(position) // 16 * 16


def _decoded(data: bytes) -> Image.Image:
    from PIL import Image

    decoded = Image.open(io.BytesIO(data))
    decoded.load()
    return decoded
