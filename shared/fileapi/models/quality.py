"""The targetScore option of every endpoint that writes a lossy image (image operations, PDF page renders)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from fileapi.convert.quality_search import MAX_TARGET_SCORE, MIN_TARGET_SCORE

TargetScore = Annotated[
    float | None,
    Field(
        ge=MIN_TARGET_SCORE,
        le=MAX_TARGET_SCORE,
        description=(
            "SSIMULACRA2 score to reach instead of a quality (30-95; 70 high quality, 80 not noticeable side by "
            "side, 90 visually lossless): the lowest encoder quality reaching it is chosen for this image and "
            "returned in X-Encoder-Quality, its score in X-Quality-Score. Lossy outputs only (jpeg, webp, avif, "
            "jxl); not with quality."
        ),
    ),
]
