"""Unlock, checked with qpdf --check and qpdf --show-encryption."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path
from typing import Literal

import pikepdf
import pytest

from fileapi.convert.pdf_unlock import unlock_pdf, unlock_pdf_file
from fileapi.errors import InvalidInput, WrongPassword
from tests.helpers import require_tool
from tests.pdf_fixtures import make_pdf

PLAIN = make_pdf(["first page", "second page"], title="Plain")


def encrypted(*, user: str, owner: str, revision: Literal[4, 6] = 6) -> bytes:
    out = io.BytesIO()
    pikepdf.Pdf.open(io.BytesIO(PLAIN)).save(
        out,
        encryption=pikepdf.Encryption(
            user=user, owner=owner, R=revision, allow=pikepdf.Permissions(extract=False, modify_other=False)
        ),
    )
    return out.getvalue()


def qpdf(path: Path, *arguments: str) -> str:
    return subprocess.run(
        [require_tool("qpdf"), *arguments, str(path)], capture_output=True, text=True, check=True
    ).stdout


@pytest.mark.tools
@pytest.mark.parametrize("password", ["user-pw", "owner-pw"])
@pytest.mark.parametrize("revision", [4, 6])
def test_unlock_with_either_password_decrypts(tmp_path: Path, password: str, revision: Literal[4, 6]) -> None:
    locked = encrypted(user="user-pw", owner="owner-pw", revision=revision)
    path = tmp_path / "unlocked.pdf"
    path.write_bytes(unlock_pdf(locked, password=password))
    assert "File is not encrypted" in qpdf(path, "--show-encryption")
    assert "No syntax or stream encoding errors" in qpdf(path, "--check")
    text = subprocess.run(
        [require_tool("pdftotext"), str(path), "-"], capture_output=True, text=True, check=True
    ).stdout
    assert "first page" in text and "second page" in text


def test_unlock_of_an_owner_only_document_needs_no_password() -> None:
    unlocked = pikepdf.Pdf.open(io.BytesIO(unlock_pdf(encrypted(user="", owner="owner-pw"))))
    assert not unlocked.is_encrypted
    assert unlocked.allow.extract and unlocked.allow.modify_other


@pytest.mark.parametrize("password", ["wrong", "USER-PW", ""])
def test_unlock_with_a_wrong_password_is_wrong_password(password: str) -> None:
    with pytest.raises(WrongPassword) as raised:
        unlock_pdf(encrypted(user="user-pw", owner="owner-pw"), password=password)
    assert raised.value.http_status == 400 and raised.value.code == "wrong_password"
    assert "user-pw" not in raised.value.message


def test_unlock_of_an_unencrypted_document_is_the_same_bytes() -> None:
    assert unlock_pdf(PLAIN, password="anything") is PLAIN


def test_unlock_file_copies_an_unencrypted_document(tmp_path: Path) -> None:
    source, out = tmp_path / "in.pdf", tmp_path / "out.pdf"
    source.write_bytes(PLAIN)
    unlock_pdf_file(str(source), str(out), password="")
    assert out.read_bytes() == PLAIN


@pytest.mark.tools
def test_unlock_file_decrypts(tmp_path: Path) -> None:
    source, out = tmp_path / "in.pdf", tmp_path / "out.pdf"
    source.write_bytes(encrypted(user="user-pw", owner="owner-pw"))
    unlock_pdf_file(str(source), str(out), password="user-pw")
    assert "File is not encrypted" in qpdf(out, "--show-encryption")


@pytest.mark.parametrize(
    ("body", "password", "reason"),
    [
        (b"", "", "empty"),
        (b"not a pdf", "", "not a PDF"),
        (PLAIN, "x" * 129, "at most 128"),
    ],
)
def test_unlock_refuses_bad_input(body: bytes, password: str, reason: str) -> None:
    with pytest.raises(InvalidInput, match=reason):
        unlock_pdf(body, password=password)


def test_the_longest_password_aes_256_keeps_opens() -> None:
    password = "p" * 127  # revision 6 uses the first 127 bytes of the UTF-8 password
    assert not pikepdf.Pdf.open(
        io.BytesIO(unlock_pdf(encrypted(user=password, owner="o"), password=password))
    ).is_encrypted
