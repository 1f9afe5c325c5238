"""The option shared by the OCR endpoints (pdf/ocr, image/ocr): the languages of the text."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from fileapi.convert.ocr_options import MAX_LANGUAGES, SHIPPED_LANGUAGES

OcrLanguages = Annotated[
    str,
    Field(
        max_length=100,
        description=f"Tesseract language codes joined by '+', such as 'eng' or 'eng+deu' (at most {MAX_LANGUAGES}): "
        f"the languages the text is in. Installed: {', '.join(SHIPPED_LANGUAGES)}.",
    ),
]
