"""POST /v1/pdf/metadata through the API: what pdfinfo and exiftool read back is what was asked."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.helpers import post_bytes
from tests.pdf_fixtures import make_pdf


def test_fields_set_and_cleared_agree_in_pdfinfo_and_exiftool(api: TestClient, key: str, tmp_path: Path) -> None:
    document = make_pdf(["body"], title="Old title", author="Someone")
    response = post_bytes(api, key, "/v1/pdf/metadata", document, title="Rapport annuel é", author="", subject="Q3")
    assert response.status_code == 200 and response.headers["content-type"] == "application/pdf"
    info = api.post("/v1/pdf/info", content=response.content, headers={"Authorization": f"Bearer {key}"}).json()
    assert info["metadata"]["title"] == "Rapport annuel é" and "author" not in info["metadata"]
    path = tmp_path / "out.pdf"
    path.write_bytes(response.content)
    if shutil.which("pdfinfo") is None or shutil.which("exiftool") is None:
        pytest.skip("pdfinfo or exiftool not installed: make tools")
    pdfinfo = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    assert "Title:           Rapport annuel é" in pdfinfo and "Subject:         Q3" in pdfinfo
    assert "Author:" not in pdfinfo
    read = subprocess.run(["exiftool", "-PDF:Title", "-PDF:Author", "-s3", str(path)], capture_output=True, text=True)
    assert read.stdout.strip().splitlines() == ["Rapport annuel é"]


def test_a_control_character_is_400(api: TestClient, key: str) -> None:
    response = post_bytes(api, key, "/v1/pdf/metadata", make_pdf(["x"]), title="a\x07b")
    assert (response.status_code, response.json()["error"]) == (400, "invalid_input")
