"""Watermark, protect, compress, fill-form and flatten, checked with pdftotext and qpdf where installed."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pikepdf
import pytest
from pypdf import PdfReader

from fileapi.convert.pdf import extract_text, pdf_info
from fileapi.convert.pdf_edit import compress_pdf, protect_pdf, text_width, watermark_pdf, watermark_pdf_file
from fileapi.convert.pdf_forms import _field_values, fill_form, flatten_form
from fileapi.errors import InvalidInput
from tests.helpers import require_tool
from tests.pdf_fixtures import make_form_pdf, make_pdf

TWO = make_pdf(["first page", "second page"], title="Secret title", author="Someone")
FORM = make_form_pdf()


def squeezed(text: str) -> str:
    return "".join(text.split())


def test_helvetica_widths() -> None:
    assert text_width("A", 1000) == 667
    assert text_width("Hi there", 10) == pytest.approx((722 + 222 + 278 + 278 + 556 + 556 + 333 + 556) / 100)


def test_watermark_is_real_text_on_the_chosen_pages() -> None:
    marked = watermark_pdf(TWO, text="CONFIDENTIAL", pages="2")
    pages = extract_text(marked).pages
    assert "CONFIDENTIAL" not in squeezed(pages[0])
    assert "CONFIDENTIAL" in squeezed(pages[1]) and "secondpage" in squeezed(pages[1])


@pytest.mark.tools
def test_pdftotext_finds_the_watermark(tmp_path: Path) -> None:
    path = tmp_path / "marked.pdf"
    path.write_bytes(watermark_pdf(TWO, text="DRAFT copy", opacity=0.5, rotation=30, font_size=40))
    out = subprocess.run(
        [require_tool("pdftotext"), "-raw", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout
    assert squeezed(out).count("DRAFTcopy") == 2
    subprocess.run([require_tool("qpdf"), "--check", str(path)], capture_output=True, check=True)


def test_watermark_opacity_is_in_the_graphics_state() -> None:
    pdf = pikepdf.Pdf.open(io.BytesIO(watermark_pdf(TWO, text="X", opacity=0.25)))
    states = pdf.pages[0].Resources.ExtGState
    assert [float(state.ca) for state in states.values()] == [0.25]


def test_watermark_over_files_draws_what_over_bytes_draws(tmp_path: Path) -> None:
    source, out = tmp_path / "in.pdf", tmp_path / "out.pdf"
    source.write_bytes(TWO)
    options: dict[str, object] = {"text": "DRAFT", "opacity": 0.4, "rotation": 30, "pages": "2"}
    watermark_pdf_file(str(source), str(out), **options)
    over_bytes = watermark_pdf(TWO, **options)  # type: ignore[arg-type]
    pages = extract_text(out.read_bytes()).pages
    assert pages == extract_text(over_bytes).pages
    assert "DRAFT" not in squeezed(pages[0]) and "DRAFT" in squeezed(pages[1])
    documents = [pikepdf.Pdf.open(io.BytesIO(data)) for data in (out.read_bytes(), over_bytes)]
    drawn = [document.pages[1] for document in documents]
    assert [[float(state.ca) for state in page.Resources.ExtGState.values()] for page in drawn] == [[0.4], [0.4]]


def test_watermark_over_files_refuses_as_over_bytes(tmp_path: Path) -> None:
    source = tmp_path / "in.pdf"
    source.write_bytes(TWO)
    with pytest.raises(InvalidInput, match="Windows-1252"):
        watermark_pdf_file(str(source), str(tmp_path / "out.pdf"), text="日本")
    source.write_bytes(b"not a PDF at all")
    with pytest.raises(InvalidInput):
        watermark_pdf_file(str(source), str(tmp_path / "out.pdf"), text="DRAFT")


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"text": "日本"}, "Windows-1252"),
        ({"text": " "}, "1..200"),
        ({"text": "x", "opacity": 1.5}, "opacity"),
        ({"text": "x", "font_size": 0}, "fontSize"),
    ],
)
def test_watermark_validation(options: dict[str, object], reason: str) -> None:
    with pytest.raises(InvalidInput, match=reason):
        watermark_pdf(TWO, **options)  # type: ignore[arg-type]


def test_protect_uses_aes_256_and_the_passwords(tmp_path: Path) -> None:
    protected = protect_pdf(TWO, user_password="open-me", owner_password="own-me", allow_copying=False)
    with pytest.raises(pikepdf.PasswordError):
        pikepdf.Pdf.open(io.BytesIO(protected))
    opened = pikepdf.Pdf.open(io.BytesIO(protected), password="open-me")
    assert opened.encryption.R == 6 and opened.encryption.bits == 256
    assert "aes" in str(opened.encryption.stream_method).lower()
    assert opened.allow.extract is False and opened.allow.print_highres is True
    with pytest.raises(InvalidInput, match="password-protected"):
        pdf_info(protected)


@pytest.mark.tools
def test_qpdf_sees_the_protection(tmp_path: Path) -> None:
    path = tmp_path / "protected.pdf"
    path.write_bytes(protect_pdf(TWO, user_password="open-me"))
    assert subprocess.run([require_tool("qpdf"), "--requires-password", str(path)]).returncode == 0
    shown = subprocess.run(
        [require_tool("qpdf"), "--show-encryption", "--password=open-me", str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "R = 6" in shown and "AESv3" in shown


def test_compress_never_grows_and_strips_metadata() -> None:
    result = compress_pdf(TWO, strip_metadata=True)
    assert result.originalSize == len(TWO)
    assert result.compressedSize <= result.originalSize
    assert pdf_info(result.data).metadata == {} or result.savedPercent == 0.0
    assert isinstance(result.savedPercent, float)


def test_compress_downsamples_large_images() -> None:
    from PIL import Image

    pdf = pikepdf.Pdf.new()
    pdf.add_blank_page(page_size=(612, 792))
    noisy = Image.effect_noise((1600, 1200), 50).convert("RGB")
    image = pdf.make_stream(noisy.tobytes())
    image.Type, image.Subtype, image.Width, image.Height = pikepdf.Name.XObject, pikepdf.Name.Image, 1600, 1200
    image.ColorSpace, image.BitsPerComponent = pikepdf.Name.DeviceRGB, 8
    pdf.pages[0].add_resource(image, pikepdf.Name.XObject, pikepdf.Name.Im0)
    pdf.pages[0].contents_add(pdf.make_stream(b"q 612 0 0 459 0 0 cm /Im0 Do Q"))
    out = io.BytesIO()
    pdf.save(out)
    result = compress_pdf(out.getvalue(), image_max_side=400)
    assert result.savedPercent > 50
    shrunk = pikepdf.Pdf.open(io.BytesIO(result.data))
    (only,) = shrunk.pages[0].get_images().values()
    assert (int(only.Width), int(only.Height)) == (400, 300)


def field_values(data: bytes) -> dict[str, object]:
    return {name: field.get("/V") for name, field in (PdfReader(io.BytesIO(data)).get_fields() or {}).items()}


def test_fill_form_sets_each_field_type() -> None:
    filled = fill_form(FORM, fields={"name": "Ada Lovelace", "agree": True, "colour": "Green"})
    assert field_values(filled) == {"name": "Ada Lovelace", "agree": "/Yes", "colour": "Green"}


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"nope": "x"}, "no field named 'nope'; the form's fields are: 'agree', 'colour', 'name'$"),
        ({"agree": "maybe"}, "true/false or one of"),
        ({"colour": "Blue"}, "one of: Red, Green"),
        ({"name": ["a"]}, "takes text"),
        ({}, "non-empty"),
    ],
)
def test_fill_form_validation(fields: dict[str, object], reason: str) -> None:
    with pytest.raises(InvalidInput, match=reason):
        fill_form(FORM, fields=fields)


@pytest.mark.parametrize(
    ("names", "says"),
    [
        ([""], "the form's fields have no names, so none can be filled by name"),
        (["", " ", "b", "a"], "the form's fields are: 'a', 'b'"),
        ([f"f{i:02}" for i in range(23)], "the form's fields are: 'f00', 'f01', .*'f19' \\(and 3 more\\)"),
    ],
)
def test_a_name_not_in_the_form_lists_the_names_there_are(names: list[str], says: str) -> None:
    with pytest.raises(InvalidInput, match=f"^no field named 'nope'; {says}$"):
        _field_values({name: {"/FT": "/Tx"} for name in names}, {"nope": "x"})


def test_fill_form_without_a_form_is_invalid() -> None:
    with pytest.raises(InvalidInput, match="no form fields"):
        fill_form(TWO, fields={"x": "y"})


def test_fill_and_flatten_bakes_the_values_and_removes_the_form() -> None:
    flat = fill_form(FORM, fields={"name": "Ada Lovelace", "agree": True}, flatten=True)
    pdf = pikepdf.Pdf.open(io.BytesIO(flat))
    assert "/AcroForm" not in pdf.Root
    assert all(annotation.get("/Subtype") != "/Widget" for annotation in pdf.pages[0].get("/Annots", []))
    assert "AdaLovelace" in squeezed(extract_text(flat).pages[0])


def test_flatten_keeps_existing_values_and_leaves_formless_pdfs_alone() -> None:
    filled = fill_form(FORM, fields={"name": "Grace Hopper"})
    flat = flatten_form(filled)
    assert "GraceHopper" in squeezed(extract_text(flat).pages[0])
    assert "/AcroForm" not in pikepdf.Pdf.open(io.BytesIO(flat)).Root
    assert flatten_form(TWO) == TWO


def choice_form(options: list[tuple[str, str]]) -> bytes:
    """A page with one list box 'fruit' whose options are [export, display] pairs (PDF 32000 12.7.4.4)."""
    pdf = pikepdf.Pdf.open(io.BytesIO(make_pdf(["Fruit:"])))
    font = pdf.make_indirect(
        pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Helvetica)
    )
    fruit = pdf.make_indirect(
        pikepdf.Dictionary(
            Type=pikepdf.Name.Annot,
            Subtype=pikepdf.Name.Widget,
            P=pdf.pages[0].obj,
            FT=pikepdf.Name.Ch,
            T=pikepdf.String("fruit"),
            Rect=[72, 500, 272, 560],
            Opt=pikepdf.Array([pikepdf.Array([pikepdf.String(e), pikepdf.String(d)]) for e, d in options]),
            DA=pikepdf.String("/Helv 12 Tf 0 g"),
        )
    )
    pdf.pages[0].obj.Annots = pdf.make_indirect(pikepdf.Array([fruit]))
    pdf.Root.AcroForm = pdf.make_indirect(
        pikepdf.Dictionary(Fields=pikepdf.Array([fruit]), DR=pikepdf.Dictionary(Font=pikepdf.Dictionary(Helv=font)))
    )
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def test_a_list_box_of_export_and_display_pairs_is_filled_and_flattened() -> None:
    form = choice_form([("a", "Apple"), ("b", "Banana")])
    filled = fill_form(form, fields={"fruit": "b"})
    assert field_values(filled) == {"fruit": "b"}  # the export value, as the form declares
    written = pikepdf.Pdf.open(io.BytesIO(filled))
    options = written.Root.AcroForm.Fields[0].Opt
    assert [[str(item) for item in pair] for pair in options] == [["a", "Apple"], ["b", "Banana"]]
    with pytest.raises(InvalidInput, match="one of: a, b"):
        fill_form(form, fields={"fruit": "Banana"})
    for flat in (fill_form(form, fields={"fruit": "b"}, flatten=True), flatten_form(filled)):
        assert "Banana" in extract_text(flat).pages[0]  # drawn from the display texts
        assert "/AcroForm" not in pikepdf.Pdf.open(io.BytesIO(flat)).Root


def radio_without_appearances() -> bytes:
    """A text field holding a value, and a radio group whose kid is a widget without an appearance (/AP is
    optional; pypdf 7.1 refuses to read such a form, qpdf's button-set.pdf has one)."""
    pdf = pikepdf.Pdf.open(io.BytesIO(make_form_pdf()))
    page = pdf.pages[0]
    kid = pdf.make_indirect(
        pikepdf.Dictionary(Type=pikepdf.Name.Annot, Subtype=pikepdf.Name.Widget, P=page.obj, Rect=[72, 400, 86, 414])
    )
    group = pdf.make_indirect(
        pikepdf.Dictionary(FT=pikepdf.Name.Btn, T=pikepdf.String("pick"), Ff=1 << 15, Kids=pikepdf.Array([kid]))
    )
    kid.Parent = group
    page.obj.Annots.append(kid)
    pdf.Root.AcroForm.Fields.append(group)
    name = pdf.Root.AcroForm.Fields[0]
    name.V = pikepdf.String("Kept value")
    pdf.Root.AcroForm.NeedAppearances = True
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def test_a_form_pypdf_cannot_read_is_flattened_by_qpdf_and_cannot_be_filled() -> None:
    from fileapi.errors import Unprocessable

    form = radio_without_appearances()
    flat = flatten_form(form)
    pdf = pikepdf.Pdf.open(io.BytesIO(flat))
    assert "/AcroForm" not in pdf.Root
    assert all(annotation.get("/Subtype") != "/Widget" for annotation in pdf.pages[0].get("/Annots", []))
    assert "Kept value" in extract_text(flat).pages[0]
    with pytest.raises(
        Unprocessable, match=r"^the PDF's form cannot be filled: the form library cannot read its fields"
    ):
        fill_form(form, fields={"name": "x"})
