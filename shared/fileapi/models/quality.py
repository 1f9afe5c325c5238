"""The targetScore option of every endpoint that writes a lossy image (image operations, PDF page renders)."""

from __future__ import annotations

from typing import Annotated, Self

from pydantic import Field, model_validator
from pydantic_core import PydanticCustomError

from fileapi.convert.quality_options import MAX_TARGET_SCORE, MIN_TARGET_SCORE, check_target_score
from fileapi.errors import InvalidInput
from fileapi.models import QueryOptions

TargetScore = Annotated[
    float | None,
    Field(
        ge=MIN_TARGET_SCORE,
        le=MAX_TARGET_SCORE,
        description=(
            "SSIMULACRA2 score to reach instead of a quality (30-95; 70 high quality, 80 not noticeable side by "
            "side, 90 visually lossless): the lowest encoder quality reaching it is chosen for this image and "
            "returned in X-Encoder-Quality (a whole number; JPEG XL's in steps of 0.25), its score in "
            "X-Quality-Score. The answer is encoded with settings "
            "tuned for size (JPEG: flat or libjpeg tables, AVIF speed 6, JPEG XL effort 4), so that quality given "
            "back as `quality` may give another file. Lossy outputs only (jpeg, webp, avif, jxl); not with quality."
        ),
    ),
]


class LossyOptions(QueryOptions):
    """The options of a conversion that writes a lossy image (fields `quality`, `target_score`, and `fmt` or
    `to`, where it has them): a targetScore its converter would refuse (with a quality, for a lossless format)
    is refused with the options, so that an operation is refused before 202."""

    @model_validator(mode="after")
    def _target_score_applies(self) -> Self:
        fmt = getattr(self, "fmt", None) or getattr(self, "to", None)
        try:
            check_target_score(getattr(self, "target_score", None), getattr(self, "quality", None), fmt)
        except InvalidInput as exc:
            raise PydanticCustomError("invalid_option", exc.message) from None
        return self
