"""POST /v1/pdf/redact through the API: the redacted strings are gone from the text layer and the content
streams (pdftotext, qpdf --qdf), the rest of the text stays, X-Redactions counts the areas."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.helpers import auth
from tests.pdf_fixtures import make_pdf


def test_text_and_pattern_removed_the_rest_kept(api: TestClient, key: str, tmp_path: Path) -> None:
    document = make_pdf(["Agent Jane Roe, SSN 123-45-6789, reports"], title="Jane Roe file")
    response = api.post(
        "/v1/pdf/redact",
        params=[("text", "Jane Roe"), ("pattern", r"\d{3}-\d{2}-\d{4}")],
        content=document,
        headers={**auth(key), "Content-Type": "application/pdf"},
    )
    assert response.status_code == 200, response.text
    assert int(response.headers["X-Redactions"]) >= 2
    if shutil.which("pdftotext") is None or shutil.which("qpdf") is None:
        pytest.skip("pdftotext or qpdf not installed: make tools")
    path = tmp_path / "out.pdf"
    path.write_bytes(response.content)
    text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout
    assert "Jane" not in text and "123-45-6789" not in text and "reports" in text and "Agent" in text
    subprocess.run(["qpdf", "--qdf", "--object-streams=disable", str(path), str(tmp_path / "qdf.pdf")], check=True)
    raw = (tmp_path / "qdf.pdf").read_bytes()
    assert b"Jane" not in raw and b"Roe" not in raw and b"6789" not in raw


def test_nothing_to_redact_and_a_backtracking_pattern_are_400(api: TestClient, key: str) -> None:
    headers = {**auth(key), "Content-Type": "application/pdf"}
    nothing = api.post("/v1/pdf/redact", content=make_pdf(["x"]), headers=headers)
    assert nothing.status_code == 400
    lookbehind = api.post("/v1/pdf/redact", params={"pattern": "(?<=a)b"}, content=make_pdf(["ab"]), headers=headers)
    assert lookbehind.status_code == 400 and "pattern" in lookbehind.json()["message"]
