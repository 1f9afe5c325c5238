"""POST /v1/pdf/pages through the API: the new page list as pdfinfo and the pages' own text show it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pypdf
import pytest
from fastapi.testclient import TestClient

from tests.helpers import post_bytes
from tests.pdf_fixtures import make_pdf


def test_reorder_delete_duplicate_and_blank(api: TestClient, key: str, tmp_path: Path) -> None:
    document = make_pdf(["one", "two", "three", "four"])
    response = post_bytes(api, key, "/v1/pdf/pages", document, order="3,1,1,blank,4")
    assert response.status_code == 200, response.text
    path = tmp_path / "out.pdf"
    path.write_bytes(response.content)
    texts = [page.extract_text().strip() for page in pypdf.PdfReader(path).pages]
    assert texts == ["three", "one", "one", "", "four"]
    if shutil.which("pdfinfo") is None:
        pytest.skip("pdfinfo not installed: make tools")
    assert "Pages:           5" in subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True).stdout


@pytest.mark.parametrize(("order", "says"), [("9", "9"), ("1,,2", "is not a page"), ("0", "0")])
def test_an_order_outside_the_document_or_malformed_is_400(api: TestClient, key: str, order: str, says: str) -> None:
    response = post_bytes(api, key, "/v1/pdf/pages", make_pdf(["one", "two"]), order=order)
    assert response.status_code == 400 and says in response.json()["message"], response.text
