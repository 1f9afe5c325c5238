"""Each hostile OCR input (tests/ocr_bombs.py) through its converter, with the options its route will
validate: the expected answer, and every refusal before any recognition (within a second)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from fileapi.convert.ocr_image import image_ocr
from fileapi.convert.ocr_pdf import pdf_ocr
from fileapi.errors import ApiError
from fileapi.models.image import ImageOcrOptions
from fileapi.models.pdf import PdfOcrOptions
from tests.bombs import Bomb
from tests.ocr_bombs import IMAGE_OCR, OCR_BOMBS, PDF_OCR

CONVERTERS: dict[str, tuple[Any, Any]] = {PDF_OCR: (pdf_ocr, PdfOcrOptions), IMAGE_OCR: (image_ocr, ImageOcrOptions)}
REFUSAL_SECONDS = 1.0  # a refusal reads headers and page sizes only


@pytest.mark.parametrize("bomb", OCR_BOMBS, ids=[bomb.name for bomb in OCR_BOMBS])
def test_ocr_bomb_gets_its_answer(bomb: Bomb) -> None:
    converter, options_model = CONVERTERS[bomb.path]
    options = options_model.model_validate(bomb.params).model_dump()
    body = bomb.build()
    started = time.perf_counter()
    try:
        converter(body, **options)
        outcome: tuple[int, str | None] = (200, None)
    except ApiError as error:
        outcome = (error.http_status, error.code)
    seconds = time.perf_counter() - started
    assert outcome == bomb.expected, bomb.why
    if outcome[0] == 413:
        assert seconds < REFUSAL_SECONDS, f"refused after {seconds:.2f} s: work was done first"


def test_every_bomb_has_a_converter() -> None:
    assert {bomb.path for bomb in OCR_BOMBS} == set(CONVERTERS)
