"""The PDF endpoints over ../shared/corpus/py-pdf-sample-files, through the HTTP app (skipped when absent)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.helpers import CORPUS, auth, corpus_dir, post_bytes

pytestmark = pytest.mark.corpus

ROOT = CORPUS / "py-pdf-sample-files"
FILES = sorted(ROOT.rglob("*.pdf")) if ROOT.is_dir() else []
PASSWORD_PROTECTED = "libreoffice-writer-password.pdf"


def expected_pages() -> dict[str, int]:
    listing = json.loads((corpus_dir("py-pdf-sample-files") / "files.json").read_text())
    return {entry["path"]: entry["pages"] for entry in listing["data"]}


def test_corpus_is_present() -> None:
    corpus_dir("py-pdf-sample-files")
    assert len(FILES) >= 25


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_info_text_and_render_on_every_file(path: Path, api: TestClient, key: str) -> None:
    data = path.read_bytes()
    info = post_bytes(api, key, "/v1/pdf/info", data)
    if path.name == PASSWORD_PROTECTED:
        assert (info.status_code, info.json()["error"]) == (400, "invalid_input")
        assert "password-protected" in info.json()["message"]
        return
    assert info.status_code == 200, info.text
    expected = expected_pages().get(str(path.relative_to(ROOT)))
    if expected is not None:
        assert info.json()["pageCount"] == expected
    text = post_bytes(api, key, "/v1/pdf/extract-text", data)
    assert len(text.json()["pages"]) == info.json()["pageCount"]
    rendered = post_bytes(api, key, "/v1/pdf/render-page", data, dpi="72")
    assert rendered.status_code == 200 or 400 <= rendered.status_code < 500, rendered.text


def test_every_file_merges(api: TestClient, key: str) -> None:
    paths = [path for path in FILES if path.name != PASSWORD_PROTECTED]
    files = [("files", (path.name, path.read_bytes(), "application/pdf")) for path in paths]
    merged = api.post("/v1/pdf/merge", files=files, headers=auth(key))
    assert merged.status_code == 200, merged.text
    count = post_bytes(api, key, "/v1/pdf/info", merged.content).json()["pageCount"]
    assert count == sum(post_bytes(api, key, "/v1/pdf/info", path.read_bytes()).json()["pageCount"] for path in paths)


def test_the_corpus_forms_fill_and_flatten(api: TestClient, key: str) -> None:
    latex = (corpus_dir("py-pdf-sample-files") / "010-pdflatex-forms" / "pdflatex-forms.pdf").read_bytes()
    flat = fill(api, key, latex, {"Name": "Ada Lovelace", "Check": True})
    assert "Ada Lovelace" in post_bytes(api, key, "/v1/pdf/extract-text", flat).json()["text"]
    office = (ROOT / "012-libreoffice-form" / "libreoffice-form.pdf").read_bytes()
    flat = fill(api, key, office, {"Last Name": "Smith", "gdpr": True, "Nationality": "French"})
    text = post_bytes(api, key, "/v1/pdf/extract-text", flat).json()["text"]
    assert "Smith" in text and "French" in text and "Bob" in text  # Bob: a value the form already held


def fill(api: TestClient, key: str, pdf: bytes, fields: dict[str, object]) -> bytes:
    files = {"file": ("form.pdf", pdf, "application/pdf")}
    data = {"fields": json.dumps(fields), "flatten": "true"}
    response = api.post("/v1/pdf/fill-form", files=files, data=data, headers=auth(key))
    assert response.status_code == 200, response.text
    return response.content


def test_every_file_compresses_without_growing(api: TestClient, key: str) -> None:
    for path in FILES:
        if path.name == PASSWORD_PROTECTED:
            continue
        result = post_bytes(api, key, "/v1/pdf/compress", path.read_bytes(), stripMetadata="true").json()
        assert result["compressedSize"] <= result["originalSize"]
