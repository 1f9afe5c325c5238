"""The hostile cases of the document endpoints (tests/pdf_bombs.py: pages, unlock, metadata, from-images, redact;
tests/ocr_bombs.py: OCR) through the API: each answered as expected, on both sides of its limit, and a refusal
charges nothing."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from fastapi.testclient import TestClient

from tests.bombs import Bomb
from tests.helpers import auth
from tests.ocr_bombs import OCR_BOMBS
from tests.pdf_bombs import DOCUMENT_BOMBS, DocumentBomb

# A query string longer than an HTTP client sends (a million-entry page list, 10,000 areas) goes through the model
# and the converter in tests/unit/convert/test_pdf_bombs_data.py instead.
MAX_QUERY_CHARS = 60_000
EVERY: list[Bomb | DocumentBomb] = [*DOCUMENT_BOMBS, *OCR_BOMBS]
CASES = [bomb for bomb in EVERY if len(urlencode(bomb.params, doseq=True)) <= MAX_QUERY_CHARS]


def used(api: TestClient, key: str) -> int:
    return int(api.get("/v1/usage", headers=auth(key)).json()["used_this_month"])


@pytest.mark.parametrize("bomb", CASES, ids=[bomb.name for bomb in CASES])
def test_each_document_bomb_is_answered_as_expected_and_a_refusal_is_free(
    api: TestClient, key: str, bomb: Bomb | DocumentBomb
) -> None:
    body, content_type = bomb.build(), bomb.content_type  # from-images' bodies are multipart already
    before = used(api, key)
    response = api.post(
        bomb.path, params=bomb.params, content=body, headers={**auth(key), "Content-Type": content_type}
    )
    status, code = bomb.expected
    assert response.status_code == status, (bomb.name, response.text[:300])
    if code is not None:
        assert response.json()["error"] == code, bomb.name
    assert used(api, key) == before + (1 if status == 200 else 0), bomb.name
