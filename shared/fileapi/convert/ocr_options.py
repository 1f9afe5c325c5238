"""The OCR converters' option values, for the options models to import without loading the converters."""

from __future__ import annotations

from enum import StrEnum

DEFAULT_LANGUAGES = "eng"
# The languages layers/requirements.txt ships (a tessdata.fast-<code> package each; a test holds them together).
SHIPPED_LANGUAGES = ("eng",)
MAX_LANGUAGES = 4  # each language adds its model's run to every line


class OcrOutput(StrEnum):
    """What pdf_ocr gives: the searchable PDF, or the text."""

    PDF = "pdf"
    TEXT = "text"
