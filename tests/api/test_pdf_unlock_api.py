"""POST /v1/pdf/unlock through the API: decrypted as qpdf sees it, a wrong password answered with its own code."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pikepdf
import pytest
from fastapi.testclient import TestClient

from tests.helpers import post_bytes
from tests.pdf_fixtures import make_pdf


def protected(user: str) -> bytes:
    out = io.BytesIO()
    with pikepdf.open(io.BytesIO(make_pdf(["secret page"]))) as pdf:
        pdf.save(out, encryption=pikepdf.Encryption(user=user, owner="owner-" + user, R=6))
    return out.getvalue()


def test_unlock_answers_the_decrypted_pdf(api: TestClient, key: str, tmp_path: Path) -> None:
    response = post_bytes(api, key, "/v1/pdf/unlock", protected("sesame"), password="sesame")
    assert response.status_code == 200 and response.headers["content-type"] == "application/pdf"
    if shutil.which("qpdf") is None:
        pytest.skip("qpdf not installed: make tools")
    path = tmp_path / "out.pdf"
    path.write_bytes(response.content)
    shown = subprocess.run(["qpdf", "--show-encryption", str(path)], capture_output=True, text=True, check=True)
    assert "File is not encrypted" in shown.stdout


def test_a_wrong_password_is_400_wrong_password_and_not_counted(api: TestClient, key: str) -> None:
    before = api.get("/v1/usage", headers={"Authorization": f"Bearer {key}"}).json()["used_this_month"]
    response = post_bytes(api, key, "/v1/pdf/unlock", protected("sesame"), password="nope")
    assert (response.status_code, response.json()["error"]) == (400, "wrong_password")
    after = api.get("/v1/usage", headers={"Authorization": f"Bearer {key}"}).json()["used_this_month"]
    assert after == before


def test_an_unencrypted_pdf_comes_back_byte_for_byte(api: TestClient, key: str) -> None:
    document = make_pdf(["open"])
    assert post_bytes(api, key, "/v1/pdf/unlock", document).content == document
