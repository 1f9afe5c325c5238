"""The document endpoints' hostile inputs (tests/pdf_bombs.py) through their options models and converters, as
their routes will call them, until the routes are declared and they join tests/bombs.py: each gets the answer
it expects (a refusal's status and code, or a result)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from fileapi.convert.pdf_from_images import images_to_pdf
from fileapi.convert.pdf_metadata import set_pdf_metadata
from fileapi.convert.pdf_pages import arrange_pages
from fileapi.convert.pdf_redact import redact_pdf
from fileapi.convert.pdf_unlock import unlock_pdf
from fileapi.errors import ApiError
from fileapi.models import pdf
from tests.pdf_bombs import DOCUMENT_BOMBS, DocumentBomb

ROUTES: dict[str, tuple[type[BaseModel], Callable[..., Any]]] = {
    "/v1/pdf/pages": (pdf.PagesOptions, arrange_pages),
    "/v1/pdf/unlock": (pdf.UnlockOptions, unlock_pdf),
    "/v1/pdf/metadata": (pdf.MetadataOptions, set_pdf_metadata),
    "/v1/pdf/from-images": (pdf.FromImagesOptions, images_to_pdf),
    "/v1/pdf/redact": (pdf.RedactOptions, redact_pdf),
}


def answer(bomb: DocumentBomb) -> tuple[int, str | None]:
    model, converter = ROUTES[bomb.path]
    try:
        options = model.model_validate(bomb.params)
    except ValidationError:
        return 400, "invalid_input"  # what fileapi.web.errors makes of a parameter's validation error
    body: Any = bomb.files() if bomb.files is not None else bomb.build()
    try:
        converter(body, **options.model_dump())
    except ApiError as error:
        return error.http_status, error.code
    return 200, None


@pytest.mark.parametrize("bomb", DOCUMENT_BOMBS, ids=[bomb.name for bomb in DOCUMENT_BOMBS])
def test_each_document_bomb_gets_its_answer(bomb: DocumentBomb) -> None:
    assert answer(bomb) == bomb.expected
