"""targetScore's bounds and its check, for the options models (fileapi.models.quality) to import without loading the
search and its encoders (fileapi.convert.quality_search): the Pdf and Image functions' cold starts declare every
route's options, and the search is imported when a request asks for a target."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fileapi.errors import InvalidInput

if TYPE_CHECKING:
    from fileapi.convert.image_io import ImageFormat

MIN_TARGET_SCORE = 30
MAX_TARGET_SCORE = 95
# The output formats a target applies to, as ImageFormat's values (its members are equal to them).
LOSSY_FORMATS = frozenset({"jpeg", "webp", "avif", "jxl"})


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
    if fmt is not None and fmt not in LOSSY_FORMATS:
        names = ", ".join(sorted(LOSSY_FORMATS))
        raise InvalidInput(f"targetScore applies to lossy outputs ({names}), not {fmt.value}: it is lossless")
    from fileapi.convert.ssimulacra2 import check_available

    check_available()
