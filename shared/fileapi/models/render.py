"""SVG rendering: its options."""

from __future__ import annotations

from typing import Self

from pydantic import Field, model_validator
from pydantic_core import PydanticCustomError

from fileapi.convert.render_options import SCALE_OR_SIZE
from fileapi.models import QueryOptions

_NOT_WITH_SCALE = " Not with scale: give scale, or width and/or height."


class SvgToPngOptions(QueryOptions):
    """Fields named as svg_to_png's keyword arguments (tests/unit/models/test_options_models.py)."""

    scale: float | None = Field(
        default=None,
        ge=0.1,
        le=10,
        description="Multiplies the intrinsic size. Not with width or height: give scale, or width and/or height.",
    )
    width: int | None = Field(default=None, ge=1, description="Output width in pixels." + _NOT_WITH_SCALE)
    height: int | None = Field(default=None, ge=1, description="Output height in pixels." + _NOT_WITH_SCALE)
    background: str | None = Field(default=None, max_length=100, description="CSS colour or `transparent` (default).")

    @model_validator(mode="after")
    def _one_way_to_size(self) -> Self:
        """svg_to_png takes a scale or a size: refused here too, so that an operation is refused before 202."""
        if self.scale is not None and (self.width is not None or self.height is not None):
            raise PydanticCustomError("conflicting_options", SCALE_OR_SIZE)
        return self
