"""SVG rendering: its options."""

from __future__ import annotations

from pydantic import Field

from fileapi.models import QueryOptions


class SvgToPngOptions(QueryOptions):
    """Fields named as svg_to_png's keyword arguments (tests/unit/models/test_options_models.py)."""

    scale: float | None = Field(default=None, ge=0.1, le=10, description="Multiplies the intrinsic size.")
    width: int | None = Field(default=None, ge=1, description="Output width in pixels.")
    height: int | None = Field(default=None, ge=1, description="Output height in pixels.")
    background: str | None = Field(default=None, max_length=100, description="CSS colour or `transparent` (default).")
