"""The data converters' option values, for the options models to import without loading the converters."""

from __future__ import annotations

MAX_INDENT = 8  # data/json-format's spaces per nesting level, at most
