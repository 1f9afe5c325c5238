"""PDFs made for the tests with pikepdf: text pages in a standard font, sizes, rotation, metadata."""

from __future__ import annotations

import io

import pikepdf


def make_pdf(
    texts: list[str],
    *,
    size: tuple[float, float] = (612, 792),
    rotate: int = 0,
    title: str | None = None,
    author: str | None = None,
) -> bytes:
    """One page per text, drawn in Helvetica 24 pt near the top left."""
    pdf = pikepdf.Pdf.new()
    font = pdf.make_indirect(
        pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Helvetica)
    )
    for text in texts:
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        content = f"BT /F1 24 Tf 72 {size[1] - 100} Td ({escaped}) Tj ET".encode("latin-1")
        page = pikepdf.Page(
            pikepdf.Dictionary(
                Type=pikepdf.Name.Page,
                MediaBox=[0, 0, size[0], size[1]],
                Resources=pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=font)),
                Contents=pdf.make_stream(content),
            )
        )
        if rotate:
            page.obj.Rotate = rotate
        pdf.pages.append(page)
    if title:
        pdf.docinfo["/Title"] = title
    if author:
        pdf.docinfo["/Author"] = author
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()
