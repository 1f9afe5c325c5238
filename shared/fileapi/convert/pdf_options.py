"""The PDF converters' option values, for the options models (fileapi.models.pdf) to import without loading the
converters: the Pdf function's cold start declares every route's options, and a converter is imported only when its
route is called (fileapi.catalogue.converters.Named)."""

from __future__ import annotations

from enum import StrEnum


class ImagePageSize(StrEnum):
    """The page an image is put on: its own size at its DPI (auto), or A4 or letter, the image fitted."""

    AUTO = "auto"
    A4 = "a4"
    LETTER = "letter"


MAX_FIELD_CHARS = 4_000  # a metadata field's characters
# Characters of `order`: "1,2,3,...,5000" written out is 23,893 characters.
MAX_ORDER_CHARS = 25_000
DEFAULT_FILL = "#000000"  # a redaction's colour
MAX_AREAS = 1_000  # redaction areas given as options
MAX_TEXTS = 100  # redacted texts
MAX_PATTERNS = 20  # redacted patterns
MAX_TERM_CHARS = 500  # characters of a redacted text or pattern
MAX_PASSWORD_CHARS = 128
