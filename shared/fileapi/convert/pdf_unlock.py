"""Unlock: an encrypted PDF written back without its encryption (qpdf decrypts every string and stream).

An unencrypted document is the answer itself, byte for byte: there is nothing to remove, and a rewrite
would change what the caller did not ask to change.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from fileapi.convert.pdf_io import Source, open_pdf, save_pdf, write_pdf
from fileapi.convert.pdf_options import MAX_PASSWORD_CHARS
from fileapi.errors import InvalidInput

if TYPE_CHECKING:
    import pikepdf


def unlock_pdf(data: bytes, *, password: str = "") -> bytes:
    """The document decrypted, with its restrictions (printing, copying, changing) gone.

    :param password: the user or the owner password (0..128 characters; empty opens a document protected only
        by an owner password, whose restrictions are then removed too).
    :returns: the decrypted PDF; `data` itself when it is not encrypted.
    :raises WrongPassword: the document is encrypted and `password` does not open it.
    :raises InvalidInput: not a readable PDF, or a password over 128 characters.
    :raises TooLarge: more than 2,000 pages.
    """
    pdf = _opened(data, password)
    if not pdf.is_encrypted:
        return data
    return save_pdf(pdf)


def unlock_pdf_file(source: str, out: str, *, password: str = "") -> None:
    """The file `source` decrypted into `out` as `unlock_pdf` does (a copy when it is not encrypted)."""
    pdf = _opened(Path(source), password)
    if not pdf.is_encrypted:
        pdf.close()
        shutil.copyfile(source, out)
        return
    write_pdf(pdf, Path(out))


def _opened(source: Source, password: str) -> pikepdf.Pdf:
    if len(password) > MAX_PASSWORD_CHARS:
        raise InvalidInput(f"password must be at most {MAX_PASSWORD_CHARS} characters, not {len(password)}")
    return open_pdf(source, password=password)
