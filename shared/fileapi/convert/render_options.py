"""The SVG renderer's option rules, for the options model to import without loading the renderer."""

from __future__ import annotations

SCALE_OR_SIZE = "give scale, or width and/or height, not both"
