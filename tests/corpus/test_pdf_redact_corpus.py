"""Redaction over ../shared/corpus/py-pdf-sample-files (skipped when absent): on every file with text, a word from
the middle of its first pages is gone from pdftotext's text, every other word is still there, and qpdf --check
passes. Fonts here: Type1 (pdflatex), TrueType subsets (LibreOffice, Google Docs), Type0 (reportlab, pdfkit)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from fileapi.convert.pdf_redact import redact_pdf
from fileapi.errors import InvalidInput
from tests.helpers import CORPUS, require_tool

pytestmark = [pytest.mark.corpus, pytest.mark.tools]

ROOT = CORPUS / "py-pdf-sample-files"
FILES = sorted(ROOT.rglob("*.pdf")) if ROOT.is_dir() else []
PASSWORD_PROTECTED = "libreoffice-writer-password.pdf"


def text(path: Path) -> str:
    out = subprocess.run([require_tool("pdftotext"), "-l", "3", str(path), "-"], capture_output=True, check=True)
    return out.stdout.decode("utf-8", "replace")


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_a_word_is_removed_and_the_others_stay(path: Path, tmp_path: Path) -> None:
    if path.name == PASSWORD_PROTECTED:
        with pytest.raises(InvalidInput, match="password"):
            redact_pdf(path.read_bytes(), texts=["x"])
        return
    before = text(path)
    candidates = re.findall(r"[A-Za-z]{7,}", before)
    if not candidates:
        pytest.skip("no text to redact (scanned or image-only)")
    word = candidates[len(candidates) // 2]
    result = redact_pdf(path.read_bytes(), texts=[word])
    out = tmp_path / "out.pdf"
    out.write_bytes(result.data)
    after = text(out)
    assert result.redactions >= 1
    assert word not in after
    others = [w for w in re.findall(r"\w+", before) if word not in w]
    assert sorted(w for w in re.findall(r"\w+", after)) == sorted(others)
    subprocess.run([require_tool("qpdf"), "--check", str(out)], capture_output=True, check=True)
