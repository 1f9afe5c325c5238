"""PDFs made for the tests with pikepdf: text pages in a standard font, sizes, rotation, metadata."""

from __future__ import annotations

import io
import zlib
from typing import Any

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


def make_form_pdf() -> bytes:
    """A one-page form: text field 'name', check box 'agree' (on state /Yes), choice 'colour'."""
    pdf = pikepdf.Pdf.open(io.BytesIO(make_pdf(["Form"])))
    page = pdf.pages[0]
    font = pdf.make_indirect(
        pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Helvetica)
    )

    def appearance(content: bytes) -> pikepdf.Stream:
        stream = pdf.make_stream(content)
        stream.Type, stream.Subtype, stream.BBox = pikepdf.Name.XObject, pikepdf.Name.Form, [0, 0, 14, 14]
        return stream

    def widget(**entries: Any) -> pikepdf.Object:
        return pdf.make_indirect(
            pikepdf.Dictionary(Type=pikepdf.Name.Annot, Subtype=pikepdf.Name.Widget, P=page.obj, **entries)
        )

    name = widget(
        FT=pikepdf.Name.Tx, T=pikepdf.String("name"), Rect=[72, 600, 300, 624], DA=pikepdf.String("/Helv 12 Tf 0 g")
    )
    agree = widget(
        FT=pikepdf.Name.Btn,
        T=pikepdf.String("agree"),
        Rect=[72, 560, 86, 574],
        V=pikepdf.Name.Off,
        AS=pikepdf.Name.Off,
        AP=pikepdf.Dictionary(N=pikepdf.Dictionary(Yes=appearance(b"0 g 2 2 10 10 re f"), Off=appearance(b""))),
    )
    colour = widget(
        FT=pikepdf.Name.Ch,
        T=pikepdf.String("colour"),
        Ff=1 << 17,
        Rect=[72, 520, 200, 544],
        Opt=pikepdf.Array([pikepdf.String("Red"), pikepdf.String("Green")]),
        DA=pikepdf.String("/Helv 12 Tf 0 g"),
    )
    page.obj.Annots = pdf.make_indirect(pikepdf.Array([name, agree, colour]))
    pdf.Root.AcroForm = pdf.make_indirect(
        pikepdf.Dictionary(
            Fields=pikepdf.Array([name, agree, colour]),
            DA=pikepdf.String("/Helv 12 Tf 0 g"),
            DR=pikepdf.Dictionary(Font=pikepdf.Dictionary(Helv=font)),
        )
    )
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def flate_bomb(decoded_mib: int) -> bytes:
    """A one-page PDF whose content stream inflates to `decoded_mib` MiB of zeros (built in chunks)."""
    compressor = zlib.compressobj(9)
    chunk = b"0" * (1024 * 1024)
    payload = b"".join(compressor.compress(chunk) for _ in range(decoded_mib)) + compressor.flush()
    pdf = pikepdf.Pdf.new()
    pdf.add_blank_page()
    stream = pikepdf.Stream(pdf, payload)
    stream.Filter = pikepdf.Name.FlateDecode
    pdf.pages[0].obj.Contents = pdf.make_indirect(stream)
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()
