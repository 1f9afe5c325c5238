"""Files the clients' tests send: a plain PNG and a PDF of blank pages, made here."""

from __future__ import annotations

import io

from PIL import Image
from pypdf import PdfWriter


def png(width: int = 64, height: int = 48) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(out, "PNG")
    return out.getvalue()


def pdf(pages: int, width: float = 612, height: float = 792) -> bytes:
    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=width, height=height)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
