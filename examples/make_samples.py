"""Write the README's sample files into this folder: photo.jpg, report.pdf, a.pdf and b.pdf (logo.svg is
written by hand). They are committed; run this again only to change them:

    .venv/bin/python examples/make_samples.py
"""

from __future__ import annotations

from pathlib import Path

import pikepdf
from PIL import Image, ImageDraw

HERE = Path(__file__).resolve().parent
A4_POINTS = (595, 842)


def make_photo() -> Image.Image:
    """A 1200x800 picture (a sky gradient, a sun and hills): big enough that resizing to 800 px shrinks it."""
    width, height = 1200, 800
    sky = Image.linear_gradient("L").resize((width, height))
    photo = Image.merge(
        "RGB",
        (sky.point(lambda v: 90 + v // 3), sky.point(lambda v: 150 + v // 4), Image.new("L", (width, height), 235)),
    )
    draw = ImageDraw.Draw(photo)
    draw.ellipse((840, 120, 1000, 280), fill=(255, 214, 90))
    draw.polygon([(0, 620), (300, 430), (620, 600), (900, 470), (1200, 640), (1200, 800), (0, 800)], fill=(60, 130, 70))
    return photo


def make_pdf(pages: list[list[str]], *, title: str) -> pikepdf.Pdf:
    """An A4 PDF with one page per entry of `pages`, each line of it in Helvetica 14 pt, and `title` in its
    metadata; its file identifier is derived from its content, so the same pages give the same bytes."""
    pdf = pikepdf.new()
    font = pdf.make_indirect(
        pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Helvetica)
    )
    for lines in pages:
        text = "".join(f"({line}) Tj T* " for line in lines)
        stream = f"BT /F1 14 Tf 18 TL 72 760 Td {text}ET".encode()
        page = pikepdf.Page(
            pikepdf.Dictionary(
                Type=pikepdf.Name.Page,
                MediaBox=[0, 0, *A4_POINTS],
                Resources=pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=font)),
                Contents=pdf.make_stream(stream),
            )
        )
        pdf.pages.append(page)
    pdf.docinfo["/Title"] = title
    pdf.docinfo["/Author"] = "File and Data Utility API examples"
    return pdf


def main() -> None:
    make_photo().save(HERE / "photo.jpg", "JPEG", quality=80, optimize=True)
    report = [["Quarterly report", "", "Sales grew in every region."], ["Page two", "", "Thank you for reading."]]
    samples = {
        "report.pdf": make_pdf(report, title="Quarterly report"),
        "a.pdf": make_pdf([["Document A"]], title="A"),
        "b.pdf": make_pdf([["Document B"]], title="B"),
    }
    for name, pdf in samples.items():
        pdf.save(HERE / name, deterministic_id=True)


if __name__ == "__main__":
    main()
