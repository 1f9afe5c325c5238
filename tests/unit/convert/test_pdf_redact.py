"""Redaction, checked with pdftotext (the text and each word's place), qpdf --qdf (no redacted string left in
any uncompressed object or stream), exiftool (no metadata left), pdftoppm (the fill colour) and pdfimages
(overwritten pixels)."""

from __future__ import annotations

import io
import re
import subprocess
from pathlib import Path
from typing import Any

import pikepdf
import pytest
from PIL import Image

from fileapi.convert.pdf_options import MAX_AREAS
from fileapi.convert.pdf_redact import redact_pdf, redact_pdf_file
from fileapi.errors import InvalidInput, TooLarge
from tests.helpers import require_tool
from tests.pdf_fixtures import make_pdf

FONTS = Path(__file__).resolve().parents[3] / "shared" / "fileapi" / "fonts"
SECRET = "Zanzibar"


def run(*argv: str, binary: bool = False) -> str:
    out = subprocess.run([require_tool(argv[0]), *argv[1:]], capture_output=True, check=True).stdout
    return out.decode("latin-1")


def page_stream(content: bytes, *, fonts: dict[str, pikepdf.Object], pdf: pikepdf.Pdf, **resources: Any) -> None:
    pdf.pages.append(
        pikepdf.Page(
            pikepdf.Dictionary(
                Type=pikepdf.Name.Page,
                MediaBox=[0, 0, 612, 792],
                Resources=pikepdf.Dictionary(Font=pikepdf.Dictionary(fonts), **resources),
                Contents=pdf.make_stream(content),
            )
        )
    )


def helvetica(pdf: pikepdf.Pdf) -> pikepdf.Object:
    return pdf.make_indirect(
        pikepdf.Dictionary(
            Type=pikepdf.Name.Font,
            Subtype=pikepdf.Name.Type1,
            BaseFont=pikepdf.Name.Helvetica,
            Encoding=pikepdf.Name.WinAnsiEncoding,
        )
    )


def saved(pdf: pikepdf.Pdf) -> bytes:
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def everywhere_document() -> bytes:
    """SECRET on the page (in spaced and kerned runs, with ' and "), in a form XObject, in the metadata and XMP,
    a note's contents, a form field's value, a bookmark's title and an embedded file."""
    pdf = pikepdf.Pdf.new()
    font = helvetica(pdf)
    form = pdf.make_stream(f"BT /F1 14 Tf 0 0 Td (Form text {SECRET} here) Tj ET".encode())
    form.Type, form.Subtype, form.BBox = pikepdf.Name.XObject, pikepdf.Name.Form, [0, -10, 400, 30]
    form.Resources = pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=font))
    content = (
        f"BT /F1 24 Tf 72 700 Td (Before {SECRET} after) Tj "
        f"0 -40 Td 2 Tc 5 Tw [(Spaced ) -300 ({SECRET[:4]}) 120 ({SECRET[4:]} words)] TJ 0 Tc 0 Tw "
        f"30 TL ({SECRET} leads) ' 3 1 (quoted {SECRET} too) \" ET "
        "q 1 0 0 1 72 500 cm /Fm1 Do Q"
    ).encode()
    page_stream(content, fonts={"/F1": font}, pdf=pdf, XObject=pikepdf.Dictionary(Fm1=form))
    pdf.docinfo["/Title"] = f"Report on {SECRET}"
    pdf.docinfo["/Keywords"] = f"{SECRET}, travel"
    with pdf.open_metadata(set_pikepdf_as_editor=False) as xmp:
        xmp["dc:title"] = f"Report on {SECRET}"
        xmp["dc:description"] = f"About {SECRET} & more"
    page = pdf.pages[0]
    note = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.Annot, Subtype=pikepdf.Name.Text,
                                                Rect=[500, 700, 520, 720], Contents=f"Ask about {SECRET}"))  # fmt: skip
    field = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.Annot, Subtype=pikepdf.Name.Widget,
                                                 FT=pikepdf.Name.Tx, T="destination", V=f"To {SECRET}",
                                                 Rect=[300, 100, 500, 120], P=page.obj))  # fmt: skip
    page.obj.Annots = pdf.make_indirect(pikepdf.Array([note, field]))
    pdf.Root.AcroForm = pdf.make_indirect(pikepdf.Dictionary(Fields=pikepdf.Array([field])))
    with pdf.open_outline() as outline:
        outline.root.append(pikepdf.OutlineItem(f"Chapter {SECRET}", 0))
    attachment = pikepdf.AttachedFileSpec(pdf, f"notes: {SECRET} in March".encode(), filename="notes.txt")  # type: ignore[call-arg]
    pdf.attachments["notes.txt"] = attachment
    return saved(pdf)


def words(path: Path) -> list[tuple[str, float, float]]:
    """Each word pdftotext finds, with the left and bottom of its box (rounded to 0.1 pt)."""
    html = run("pdftotext", "-bbox", str(path), "-")
    found = re.findall(r'<word xMin="([\d.]+)" yMin="[\d.]+" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)</word>', html)
    return [(text, round(float(x), 1), round(float(y), 1)) for x, y, text in found]


@pytest.mark.tools
def test_a_text_is_gone_from_everywhere_and_the_rest_stays_in_place(tmp_path: Path) -> None:
    source, out = tmp_path / "in.pdf", tmp_path / "out.pdf"
    source.write_bytes(everywhere_document())
    result = redact_pdf(source.read_bytes(), texts=[SECRET])
    out.write_bytes(result.data)
    assert result.redactions == 5  # four on the page (the TJ split in two is one match), one in the form
    assert SECRET in run("pdftotext", str(source), "-")
    assert SECRET not in run("pdftotext", str(out), "-")
    qdf = run("qpdf", "--qdf", "--object-streams=disable", str(out), "-")
    assert SECRET not in qdf and "(Zanz)" not in qdf and "(ibar" not in qdf  # nor the TJ's halves
    assert SECRET not in run("exiftool", "-a", "-G1", "-ee", str(out))
    before = [word for word in words(source) if SECRET[:4] not in word[0] and SECRET[4:] not in word[0]]
    assert sorted(words(out)) == sorted(before)  # every other word, at the same place
    assert "No syntax or stream encoding errors" in run("qpdf", "--check", str(out))


@pytest.mark.tools
@pytest.mark.parametrize(
    "state",
    ["150 Tz", "4 Ts", "1.5 Tc 3 Tw", "0.7 0.3 -0.3 0.7 0 0 cm", "-1 0 0 1 612 0 cm 2 0 0 2 0 0 cm"],
    ids=["horizontal scaling", "rise", "spacing", "turned", "mirrored and scaled"],
)
def test_the_text_state_places_every_glyph(tmp_path: Path, state: str) -> None:
    pdf = pikepdf.Pdf.new()
    outside = f"q {state} BT" if "cm" in state else f"q BT {state}"
    content = f"{outside} /F1 12 Tf 72 300 Td (Left words {SECRET} right words) Tj 0 -20 Td (Second line) Tj ET Q"
    page_stream(content.encode(), fonts={"/F1": helvetica(pdf)}, pdf=pdf)
    source, out = tmp_path / "in.pdf", tmp_path / "out.pdf"
    source.write_bytes(saved(pdf))
    out.write_bytes(redact_pdf(source.read_bytes(), texts=[SECRET]).data)
    qdf = run("qpdf", "--qdf", "--object-streams=disable", str(out), "-")
    assert SECRET not in qdf and "(Second line) Tj" in qdf
    assert re.search(r"\[ \(Left words ?\) -\d+(\.\d+)? \(( )?right words\) \] TJ", qdf)
    if "cm" not in state:  # pdftotext splits turned and mirrored text into letters: words are compared upright
        assert sorted(words(out)) == sorted(w for w in words(source) if w[0] != SECRET)


@pytest.mark.tools
def test_the_fill_colour_is_drawn_over_each_area(tmp_path: Path) -> None:
    out = tmp_path / "out.pdf"
    out.write_bytes(redact_pdf(make_pdf(["nothing here"]), areas=["1,100,100,50,40"], fill="#12c034").data)
    run("pdftoppm", "-r", "72", "-png", "-singlefile", str(out), str(tmp_path / "page"))
    page = Image.open(tmp_path / "page.png").convert("RGB")
    assert page.getpixel((125, 792 - 120)) == (0x12, 0xC0, 0x34)
    assert page.getpixel((95, 792 - 120)) == (255, 255, 255)


@pytest.mark.tools
def test_a_run_crossing_an_area_s_edge_is_split(tmp_path: Path) -> None:
    source, out = tmp_path / "in.pdf", tmp_path / "out.pdf"
    source.write_bytes(make_pdf(["ABCDEFGHIJ"]))  # Helvetica 24 at x 72: A 16.0, B 16.0, C 17.3, D 17.3 pt
    boxes = dict((text, x) for text, x, _ in words(source))
    assert boxes == {"ABCDEFGHIJ": 72.0}
    out.write_bytes(redact_pdf(source.read_bytes(), areas=["1,110,650,30,100"]).data)  # C and D centres inside
    assert [(text, x) for text, x, _ in words(out)] == [("AB", 72.0), ("EFGHIJ", 138.7)]


@pytest.mark.tools
def test_a_pattern_and_its_count(tmp_path: Path) -> None:
    out = tmp_path / "out.pdf"
    document = make_pdf(["SSN 123-45-6789 and 987-65-4321", "none here"], title="Filed as 123-45-6789")
    result = redact_pdf(document, patterns=[r"\d{3}-\d{2}-\d{4}"])
    out.write_bytes(result.data)
    assert result.redactions == 2
    text = run("pdftotext", str(out), "-")
    assert "SSN" in text and "and" in text and "none here" in text and not re.search(r"\d{3}-\d{2}", text)
    assert "123-45-6789" not in run("exiftool", "-a", str(out))


def image_page(image: Image.Image, fmt: str) -> bytes:
    """One page drawing `image` over (100, 100)-(300, 300)."""
    pdf = pikepdf.Pdf.new()
    out = io.BytesIO()
    image.save(out, "JPEG" if fmt == "jpeg" else "PNG", quality=95)
    if fmt == "jpeg":
        xobject = pdf.make_stream(out.getvalue())
        xobject.Filter = pikepdf.Name.DCTDecode
    else:
        xobject = pdf.make_stream(image.tobytes())
    xobject.Type, xobject.Subtype = pikepdf.Name.XObject, pikepdf.Name.Image
    xobject.Width, xobject.Height, xobject.BitsPerComponent = image.width, image.height, 8
    xobject.ColorSpace = pikepdf.Name.DeviceRGB
    page_stream(b"q 200 0 0 200 100 100 cm /Im1 Do Q", fonts={}, pdf=pdf, XObject=pikepdf.Dictionary(Im1=xobject))
    return saved(pdf)


@pytest.mark.tools
@pytest.mark.parametrize("fmt", ["jpeg", "raw"])
def test_image_pixels_under_an_area_are_overwritten(tmp_path: Path, fmt: str) -> None:
    image = Image.new("RGB", (100, 100), (30, 60, 220))
    out = tmp_path / "out.pdf"
    # The area covers the image's left half and bottom half: pixels x < 50 and y >= 50 (rows from the top).
    out.write_bytes(redact_pdf(image_page(image, fmt), areas=["1,50,50,150,100"], fill="#ff0000").data)
    qdf = run("qpdf", "--qdf", "--object-streams=disable", str(out), "-")
    assert qdf.count("/Subtype /Image") == 1  # the original image is not written
    run("pdfimages", "-png", str(out), str(tmp_path / "x"))
    [extracted] = sorted(tmp_path.glob("x-*.png"))
    pixels = Image.open(extracted).convert("RGB")
    assert all(abs(a - b) < 12 for a, b in zip(pixels.getpixel((10, 90)), (255, 0, 0), strict=True))  # type: ignore[arg-type]
    assert all(abs(a - b) < 12 for a, b in zip(pixels.getpixel((90, 10)), (30, 60, 220), strict=True))  # type: ignore[arg-type]
    assert all(abs(a - b) < 12 for a, b in zip(pixels.getpixel((10, 10)), (30, 60, 220), strict=True))  # type: ignore[arg-type]


@pytest.mark.tools
def test_an_image_inside_a_form_is_overwritten_for_its_page_only(tmp_path: Path) -> None:
    pdf = pikepdf.Pdf.new()
    image = pdf.make_stream(Image.new("RGB", (10, 10), (30, 60, 220)).tobytes())
    image.Type, image.Subtype, image.Width, image.Height = pikepdf.Name.XObject, pikepdf.Name.Image, 10, 10
    image.ColorSpace, image.BitsPerComponent = pikepdf.Name.DeviceRGB, 8
    form = pdf.make_stream(b"q 100 0 0 100 0 0 cm /Im1 Do Q")
    form.Type, form.Subtype, form.BBox = pikepdf.Name.XObject, pikepdf.Name.Form, [0, 0, 100, 100]
    form.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(Im1=image))
    shared = pdf.make_indirect(pikepdf.Dictionary(Fm1=form))
    for _ in range(2):
        page_stream(b"q 1 0 0 1 200 200 cm /Fm1 Do Q", fonts={}, pdf=pdf, XObject=shared)
    out = tmp_path / "out.pdf"
    out.write_bytes(redact_pdf(saved(pdf), areas=["1,200,200,50,100"], fill="#ffffff").data)
    for page, left in [(1, (255, 255, 255)), (2, (30, 60, 220))]:
        run("pdfimages", "-f", str(page), "-l", str(page), "-png", str(out), str(tmp_path / f"p{page}"))
        [extracted] = sorted(tmp_path.glob(f"p{page}-*.png"))
        pixels = Image.open(extracted).convert("RGB")
        assert pixels.getpixel((2, 5)) == left and pixels.getpixel((8, 5)) == (30, 60, 220)


@pytest.mark.tools
def test_a_stencil_mask_under_an_area_stops_painting_there(tmp_path: Path) -> None:
    pdf = pikepdf.Pdf.new()
    mask = pdf.make_stream(bytes(8))  # 8x8, every sample 0: painted (Decode [0 1])
    mask.Type, mask.Subtype, mask.Width, mask.Height = pikepdf.Name.XObject, pikepdf.Name.Image, 8, 8
    mask.ImageMask, mask.BitsPerComponent = True, 1
    page_stream(b"0 0 1 rg q 80 0 0 80 100 100 cm /M Do Q", fonts={}, pdf=pdf, XObject=pikepdf.Dictionary(M=mask))
    source, out = tmp_path / "in.pdf", tmp_path / "out.pdf"
    source.write_bytes(saved(pdf))
    out.write_bytes(redact_pdf(source.read_bytes(), areas=["1,100,100,40,80"], fill="#ff0000").data)
    for path, left in [(source, 255), (out, 0)]:  # pdfimages writes painted samples white
        run("pdfimages", "-png", str(path), str(tmp_path / path.stem))
        [extracted] = sorted(tmp_path.glob(f"{path.stem}-*.png"))
        image = Image.open(extracted)
        assert (image.getpixel((1, 1)), image.getpixel((6, 1))) == (left, 255)


@pytest.mark.tools
def test_marked_content_over_removed_glyphs_loses_its_actual_text(tmp_path: Path) -> None:
    pdf = pikepdf.Pdf.new()
    content = (
        f"/Span <</ActualText ({SECRET}) /Lang (en)>> BDC BT /F1 20 Tf 72 700 Td ({SECRET}) Tj ET EMC "
        "/Span <</ActualText (kept words)>> BDC BT /F1 20 Tf 72 600 Td (kept words) Tj ET EMC"
    )
    page_stream(content.encode(), fonts={"/F1": helvetica(pdf)}, pdf=pdf)
    out = tmp_path / "out.pdf"
    out.write_bytes(redact_pdf(saved(pdf), texts=[SECRET]).data)
    assert " ".join(run("pdftotext", str(out), "-").split()) == "kept words"
    qdf = run("qpdf", "--qdf", "--object-streams=disable", str(out), "-")
    assert SECRET not in qdf and "/Lang (en)" in qdf and "/ActualText (kept words)" in qdf


@pytest.mark.tools
@pytest.mark.parametrize(
    ("content", "left"),
    [
        # pdfium gives the span's /ActualText, spread evenly over the glyphs: no glyph of the match may stay.
        (f"/Span <</ActualText (Name: {SECRET} here)>> BDC BT /F1 24 Tf 72 700 Td (Name: {SECRET} here) Tj ET EMC", ""),
        (
            f"BT /F1 24 Tf 72 700 Td (Name: ) Tj /Span <</ActualText ({SECRET})>> BDC ({SECRET}) Tj EMC ( here) Tj ET",
            "Name: here",
        ),
        (
            "BT /F1 24 Tf 72 700 Td (Name: ) Tj /Span <</ActualText <FEFF005A0061006E007A0069006200610072>>> BDC "
            "(XXXXXXXX) Tj EMC ( here) Tj ET",
            "Name: here",
        ),
    ],
    ids=["a span over the whole line", "a span inside a text object", "glyphs that say something else"],
)
def test_a_match_in_actual_text_removes_its_glyphs_and_the_actual_text(tmp_path: Path, content: str, left: str) -> None:
    pdf = pikepdf.Pdf.new()
    page_stream(content.encode(), fonts={"/F1": helvetica(pdf)}, pdf=pdf)
    out = tmp_path / "out.pdf"
    out.write_bytes(redact_pdf(saved(pdf), texts=[SECRET]).data)
    assert " ".join(run("pdftotext", str(out), "-").split()) == left
    qdf = run("qpdf", "--qdf", "--object-streams=disable", str(out), "-")
    assert SECRET not in qdf and "(X" not in qdf and "zanz" not in qdf.lower() and "FEFF005A" not in qdf.upper()


def masked_image_page(mask: str) -> bytes:
    """One page drawing a 100 x 100 blue image over (100, 100)-(300, 300), its shape in a soft mask (a disc's
    alpha) or in a stencil /Mask (1 outside the disc: not painted)."""
    from PIL import ImageDraw

    pdf = pikepdf.Pdf.new()
    disc = Image.new("L", (100, 100), 0)
    ImageDraw.Draw(disc).ellipse((10, 10, 90, 90), fill=255)
    image = pdf.make_stream(Image.new("RGB", (100, 100), (0, 0, 255)).tobytes())
    image.Type, image.Subtype, image.Width, image.Height = pikepdf.Name.XObject, pikepdf.Name.Image, 100, 100
    image.ColorSpace, image.BitsPerComponent = pikepdf.Name.DeviceRGB, 8
    if mask == "soft":
        shape = pdf.make_stream(disc.tobytes())
        shape.ColorSpace, shape.BitsPerComponent = pikepdf.Name.DeviceGray, 8
    else:
        shape = pdf.make_stream(disc.point(lambda value: 0 if value else 255).convert("1").tobytes())
        shape.ImageMask, shape.BitsPerComponent = True, 1
    shape.Type, shape.Subtype, shape.Width, shape.Height = pikepdf.Name.XObject, pikepdf.Name.Image, 100, 100
    image["/SMask" if mask == "soft" else "/Mask"] = shape
    page_stream(b"q 200 0 0 200 100 100 cm /Im1 Do Q", fonts={}, pdf=pdf, XObject=pikepdf.Dictionary(Im1=image))
    return saved(pdf)


@pytest.mark.tools
@pytest.mark.parametrize("mask", ["soft", "stencil"])
def test_an_image_s_mask_keeps_no_shape_under_an_area_and_the_rest_of_it(tmp_path: Path, mask: str) -> None:
    out = tmp_path / "out.pdf"
    # The area is the image's left half: the disc's left half must leave no trace there, in pixels or mask.
    out.write_bytes(redact_pdf(masked_image_page(mask), areas=["1,100,100,100,200"], fill="#ffffff").data)
    written = pikepdf.open(out)
    stencil = written.pages[0].Resources.XObject.Im1["/SMask" if mask == "soft" else "/Mask"]
    assert isinstance(stencil, pikepdf.Stream)
    shape = pikepdf.PdfImage(stencil).as_pil_image().convert("L")
    left, right = shape.crop((0, 0, 50, 100)), shape.crop((50, 0, 100, 100))
    assert left.getextrema()[0] == left.getextrema()[1]  # one value: no disc
    assert right.getextrema()[0] != right.getextrema()[1]  # the disc's other half, kept
    run("pdftoppm", "-r", "36", "-png", str(out), str(tmp_path / "page"))  # 0.5 px a point
    [page] = sorted(tmp_path.glob("page*.png"))
    pixels = Image.open(page).convert("RGB")
    # Outside the disc and the area: the page shows through (white), as before; inside the disc: blue.
    corner, disc = pixels.getpixel((148, 148)), pixels.getpixel((125, 100))
    assert corner == (255, 255, 255) and isinstance(disc, tuple) and disc[2] > 200


@pytest.mark.tools
def test_a_sixteen_bit_image_keeps_its_values_outside_the_area(tmp_path: Path) -> None:
    pdf = pikepdf.Pdf.new()
    grey = Image.new("I;16", (100, 100), 190 * 257)
    image = pdf.make_stream(grey.tobytes("raw", "I;16B"))
    image.Type, image.Subtype, image.Width, image.Height = pikepdf.Name.XObject, pikepdf.Name.Image, 100, 100
    image.ColorSpace, image.BitsPerComponent = pikepdf.Name.DeviceGray, 16
    page_stream(b"q 200 0 0 200 100 100 cm /Im1 Do Q", fonts={}, pdf=pdf, XObject=pikepdf.Dictionary(Im1=image))
    out = tmp_path / "out.pdf"
    out.write_bytes(redact_pdf(saved(pdf), areas=["1,100,100,100,200"], fill="#000000").data)
    written = pikepdf.open(out)
    redacted = written.pages[0].Resources.XObject.Im1
    assert isinstance(redacted, pikepdf.Stream)
    pixels = pikepdf.PdfImage(redacted).as_pil_image()
    assert (pixels.getpixel((10, 50)), pixels.getpixel((90, 50))) == (0, 190)  # was white: 16 bits clipped


@pytest.mark.tools
def test_a_script_stream_and_the_page_thumbnail_lose_the_text(tmp_path: Path) -> None:
    pdf = pikepdf.Pdf.new()
    page_stream(f"BT /F1 20 Tf 72 700 Td (Ask {SECRET}) Tj ET".encode(), fonts={"/F1": helvetica(pdf)}, pdf=pdf)
    script = pdf.make_stream(f"app.alert('{SECRET} in a stream');".encode())
    action = pikepdf.Dictionary(S=pikepdf.Name.JavaScript, JS=script)
    pdf.Root.Names = pikepdf.Dictionary(JavaScript=pikepdf.Dictionary(Names=pikepdf.Array(["hello", action])))
    thumb = pdf.make_stream(bytes(3 * 8 * 8))
    thumb.Width, thumb.Height, thumb.BitsPerComponent = 8, 8, 8
    thumb.ColorSpace = pikepdf.Name.DeviceRGB
    pdf.pages[0].obj.Thumb = thumb
    out = tmp_path / "out.pdf"
    out.write_bytes(redact_pdf(saved(pdf), texts=[SECRET]).data)
    qdf = run("qpdf", "--qdf", "--object-streams=disable", str(out), "-")
    assert SECRET not in qdf and "app.alert(' in a stream');" in qdf
    assert "/Thumb" not in qdf


def cid_document() -> bytes:
    """A page in DejaVu Sans embedded by pdfium as a Type0 font with Identity-H."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    document = pdfium.PdfDocument.new()
    page = document.new_page(612, 792)
    data = (FONTS / "DejaVuSans.ttf").read_bytes()
    buffer = (raw.c_uint8 * len(data)).from_buffer_copy(data)
    font = raw.FPDFText_LoadFont(document.raw, buffer, len(data), raw.FPDF_FONT_TRUETYPE, True)
    for y, text in [(700, f"Line with {SECRET} inside"), (650, "Plain line")]:
        obj = raw.FPDFPageObj_CreateTextObj(document.raw, font, 20.0)
        encoded = (text + "\0").encode("utf-16-le")
        raw.FPDFText_SetText(obj, (raw.c_ushort * (len(encoded) // 2)).from_buffer_copy(encoded))
        raw.FPDFPageObj_Transform(obj, 1, 0, 0, 1, 72, y)
        raw.FPDFPage_InsertObject(page.raw, obj)
    raw.FPDFPage_GenerateContent(page.raw)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


@pytest.mark.tools
def test_an_identity_h_font_is_redacted_glyph_by_glyph(tmp_path: Path) -> None:
    source, out = tmp_path / "in.pdf", tmp_path / "out.pdf"
    source.write_bytes(cid_document())
    pdf = pikepdf.Pdf.open(source)
    assert [str(f.Encoding) for f in pdf.pages[0].Resources.Font.values()] == ["/Identity-H"]
    out.write_bytes(redact_pdf(source.read_bytes(), texts=[SECRET]).data)
    text = run("pdftotext", str(out), "-")
    assert SECRET not in text and "inside" in text and "Plain line" in text
    assert sorted(words(out)) == sorted(w for w in words(source) if w[0] != SECRET)


@pytest.mark.tools
def test_text_in_a_font_that_cannot_be_measured_goes_with_its_text_object(tmp_path: Path) -> None:
    pdf = pikepdf.Pdf.new()
    mystery = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1,
                                                   BaseFont=pikepdf.Name("/MysteryFont")))  # fmt: skip
    content = f"BT /F1 20 Tf 72 700 Td (Call {SECRET} now) Tj ET BT /F1 20 Tf 72 600 Td (Elsewhere safe) Tj ET"
    page_stream(content.encode(), fonts={"/F1": mystery}, pdf=pdf)
    out = tmp_path / "out.pdf"
    out.write_bytes(redact_pdf(saved(pdf), areas=["1,120,690,40,30"]).data)
    text = run("pdftotext", str(out), "-")
    assert "Call" not in text and SECRET not in text and "Elsewhere safe" in text


@pytest.mark.tools
def test_a_shared_form_is_copied_for_the_page_redacted(tmp_path: Path) -> None:
    pdf = pikepdf.Pdf.new()
    font = helvetica(pdf)
    form = pdf.make_stream(f"BT /F1 14 Tf 0 0 Td ({SECRET} in a form) Tj ET".encode())
    form.Type, form.Subtype, form.BBox = pikepdf.Name.XObject, pikepdf.Name.Form, [0, -10, 400, 30]
    form.Resources = pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=font))
    shared = pdf.make_indirect(pikepdf.Dictionary(Fm1=form))
    for _ in range(2):
        page_stream(b"q 1 0 0 1 72 500 cm /Fm1 Do Q", fonts={"/F1": font}, pdf=pdf, XObject=shared)
    out = tmp_path / "out.pdf"
    out.write_bytes(redact_pdf(saved(pdf), areas=["1,70,495,55,25"]).data)
    pages = run("pdftotext", str(out), "-").split("\f")
    assert SECRET not in pages[0] and "in a form" in pages[0]
    assert f"{SECRET} in a form" in pages[1]


@pytest.mark.tools
def test_text_in_an_annotation_s_appearance_is_found_and_removed(tmp_path: Path) -> None:
    pdf = pikepdf.Pdf.open(io.BytesIO(make_pdf(["page text"])))
    font = helvetica(pdf)
    appearance = pdf.make_stream(f"BT /F1 12 Tf 2 4 Td (Stamped {SECRET}) Tj ET".encode())
    appearance.Type, appearance.Subtype, appearance.BBox = pikepdf.Name.XObject, pikepdf.Name.Form, [0, 0, 200, 20]
    appearance.Resources = pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=font))
    stamp = pikepdf.Dictionary(Type=pikepdf.Name.Annot, Subtype=pikepdf.Name.FreeText, Rect=[72, 400, 272, 420])
    stamp.AP = pikepdf.Dictionary(N=appearance)
    pdf.pages[0].obj.Annots = pikepdf.Array([pdf.make_indirect(stamp)])
    source, out = tmp_path / "in.pdf", tmp_path / "out.pdf"
    source.write_bytes(saved(pdf))
    assert SECRET in run("pdftotext", str(source), "-")
    result = redact_pdf(source.read_bytes(), texts=[SECRET])
    out.write_bytes(result.data)
    assert result.redactions == 1
    text = run("pdftotext", str(out), "-")
    assert SECRET not in text and "page text" in text
    assert SECRET not in run("qpdf", "--qdf", "--object-streams=disable", str(out), "-")


def test_the_area_bound_on_both_sides() -> None:
    document = make_pdf(["x"])
    assert redact_pdf(document, areas=["1,0,0,1,1"] * MAX_AREAS).redactions == MAX_AREAS
    with pytest.raises(TooLarge, match="1,001 areas"):
        redact_pdf(document, areas=["1,0,0,1,1"] * (MAX_AREAS + 1))


def test_a_backtracking_pattern_runs_in_linear_time() -> None:
    result = redact_pdf(make_pdf(["a" * 3000 + "!", "aaa"]), patterns=[r"(a|aa)+$", r"^(a|a?)+$"])
    assert result.redactions == 2  # page 2 matches both; page 1's a's are followed by "!"


def test_a_pattern_re2_cannot_run_is_invalid_input(capfd: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(InvalidInput, match="lookarounds"):
        redact_pdf(make_pdf(["x"]), patterns=["(?<=secret )word"])
    assert "secret" not in capfd.readouterr().err  # RE2 logs nothing


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"areas": ["1,0,0,10"]}, "five numbers"),
        ({"areas": ["1,0,0,ten,10"]}, "numbers"),
        ({"areas": ["2,0,0,10,10"]}, "outside the document"),
        ({"areas": ["1,0,0,0,10"]}, "positive"),
        ({"areas": ["1,0,0,nan,10"]}, "positive"),
        ({"fill": "red", "texts": ["x"]}, "#rrggbb"),
        ({"texts": [" "]}, "1..500"),
        ({"patterns": ["(unclosed"]}, "not a regular expression"),
        ({"patterns": ["(a{1000}){1000}"]}, "not a regular expression"),
    ],
)
def test_bad_options_are_invalid_input(options: dict[str, object], reason: str) -> None:
    with pytest.raises(InvalidInput, match=reason):
        redact_pdf(make_pdf(["x"]), **options)  # type: ignore[arg-type]


def test_nothing_to_redact_is_invalid_input() -> None:
    with pytest.raises(InvalidInput, match="at least one text, pattern or area"):
        redact_pdf(make_pdf(["keep all"]))


def test_a_form_s_default_appearance_is_syntax_not_text(tmp_path: Path) -> None:
    pdf = pikepdf.Pdf.open(io.BytesIO(make_pdf(["Total 12"])))
    pdf.Root.AcroForm = pikepdf.Dictionary(Fields=pikepdf.Array(), DA=pikepdf.String("/Helv 12 Tf 0 g"))
    result = pikepdf.Pdf.open(io.BytesIO(redact_pdf(saved(pdf), patterns=[r"\d+"]).data))
    assert str(result.Root.AcroForm.DA) == "/Helv 12 Tf 0 g"


@pytest.mark.tools
def test_file_variant(tmp_path: Path) -> None:
    source, out = tmp_path / "in.pdf", tmp_path / "out.pdf"
    source.write_bytes(everywhere_document())
    assert redact_pdf_file(str(source), str(out), texts=[SECRET]) == 5
    assert SECRET not in run("qpdf", "--qdf", "--object-streams=disable", str(out), "-")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["in.pdf", "out.pdf"]
