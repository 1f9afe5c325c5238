"""Scans made for the OCR tests: text drawn with the bundled DejaVu Sans onto a white page (where each word
is, known), saved as an image or embedded as a JPEG page image in a PDF (a scanner's PDF)."""

from __future__ import annotations

import io
from dataclasses import dataclass

import pikepdf
from PIL import Image, ImageDraw, ImageFont

from fileapi.convert.render import FONT_PATH

LINES = (
    "The quick brown fox jumps over the lazy dog",
    "Invoice number 4711 was paid in March",
    "Searchable documents help every reader",
)


@dataclass(frozen=True)
class Scan:
    """A page image and where each word was drawn: word -> (left, top, right, bottom) in pixels."""

    image: Image.Image
    boxes: dict[str, tuple[int, int, int, int]]


def text_scan(lines: tuple[str, ...] = LINES, *, size: tuple[int, int] = (1700, 2200), font_px: int = 42) -> Scan:
    """Black text lines from (150, 150) down, on a greyscale page of `size` pixels (8.5 x 11 in at 200 dpi)."""
    image = Image.new("L", size, 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(str(FONT_PATH), font_px)
    boxes: dict[str, tuple[int, int, int, int]] = {}
    top = 150
    for line in lines:
        left = 150
        for word in line.split():
            box = draw.textbbox((left, top), word, font=font)
            draw.text((left, top), word, font=font, fill=0)
            boxes[word] = (round(box[0]), round(box[1]), round(box[2]), round(box[3]))
            left = round(box[2]) + font_px // 3
        top += font_px * 2
    return Scan(image, boxes)


def encoded(image: Image.Image, fmt: str = "PNG", **options: object) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


def scanned_pdf(
    images: list[Image.Image], *, page_size: tuple[float, float] = (612, 792), rotate: int = 0, text: str = ""
) -> bytes:
    """One page per image, the image (a JPEG, /DCTDecode) filling the page; `text` adds a last page of vector
    text in Helvetica."""
    pdf = pikepdf.Pdf.new()
    width, height = page_size
    for image in images:
        stream = pdf.make_stream(
            encoded(image, "JPEG", quality=85),
            Type=pikepdf.Name.XObject,
            Subtype=pikepdf.Name.Image,
            Width=image.width,
            Height=image.height,
            ColorSpace=pikepdf.Name.DeviceGray,
            BitsPerComponent=8,
            Filter=pikepdf.Name.DCTDecode,
        )
        page = pdf.add_blank_page(page_size=page_size)
        page.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(Im0=stream))
        page.Contents = pdf.make_stream(f"q {width} 0 0 {height} 0 0 cm /Im0 Do Q".encode())
        if rotate:
            page.Rotate = rotate
    if text:
        font = pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Helvetica)
        page = pdf.add_blank_page(page_size=page_size)
        page.Resources = pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=font))
        page.Contents = pdf.make_stream(f"BT /F1 18 Tf 72 {height - 100} Td ({text}) Tj ET".encode("latin-1"))
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def blank_pages_pdf(count: int, *, width_pt: float, height_pt: float) -> bytes:
    """`count` empty pages of width_pt x height_pt points (no text: each is one to recognise)."""
    pdf = pikepdf.Pdf.new()
    for _ in range(count):
        pdf.add_blank_page(page_size=(width_pt, height_pt))
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()
