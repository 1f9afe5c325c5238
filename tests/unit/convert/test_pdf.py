"""PDF converters on PDFs made here, checked with pdfinfo, pdftotext and qpdf where installed."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pikepdf
import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from fileapi.convert.pages import parse_pages, parse_ranges
from fileapi.convert.pdf import RenderFormat, extract_text, merge_pdfs, pdf_info, render_pages, rotate_pdf, split_pdf
from fileapi.errors import ApiError, InvalidInput, TooLarge
from tests.helpers import require_tool
from tests.pdf_fixtures import flate_bomb, make_pdf

THREE = make_pdf(["alpha page", "beta page", "gamma page"], title="Greek", author="Tester")


def pages_of(data: bytes) -> int:
    return len(pikepdf.Pdf.open(io.BytesIO(data)).pages)


def test_parse_pages_and_ranges() -> None:
    assert parse_pages(None, 3) == [1, 2, 3]
    assert parse_pages("all", 3) == [1, 2, 3]
    assert parse_pages(" 3, 1-2 ,2", 5) == [3, 1, 2]
    assert parse_pages(None, 3, default_all=False) == [1]
    assert parse_ranges("1-3, 4-4,7", 7) == [(1, 3), (4, 4), (7, 7)]
    for bad, reason in (("3-1", "reversed"), ("0", "from 1"), ("9", "outside"), ("a", "not a page"), ("", "give")):
        with pytest.raises(InvalidInput, match=reason):
            parse_ranges(bad, 8)


@given(st.text(max_size=30), st.integers(min_value=1, max_value=50))
def test_page_parser_gives_pages_or_invalid_input(text: str, count: int) -> None:
    try:
        pages = parse_pages(text, count)
    except InvalidInput:
        return
    assert all(1 <= page <= count for page in pages)


def test_info() -> None:
    info = pdf_info(make_pdf(["x", "y"], size=(300, 500), rotate=90, title="T", author="A"))
    assert info.pageCount == 2
    assert info.pageSizes == [{"width": 500.0, "height": 300.0}] * 2
    assert info.metadata == {"title": "T", "author": "A"}
    assert info.encrypted is False


def test_info_of_a_pdf_encrypted_with_an_empty_user_password() -> None:
    pdf = pikepdf.Pdf.open(io.BytesIO(THREE))
    out = io.BytesIO()
    pdf.save(out, encryption=pikepdf.Encryption(user="", owner="owner-secret"))
    info = pdf_info(out.getvalue())
    assert (info.pageCount, info.encrypted) == (3, True)


def test_password_protected_pdf_is_invalid_input() -> None:
    pdf = pikepdf.Pdf.open(io.BytesIO(THREE))
    out = io.BytesIO()
    pdf.save(out, encryption=pikepdf.Encryption(user="user-secret", owner="owner-secret"))
    for operation in (pdf_info, extract_text, render_pages):
        with pytest.raises(InvalidInput, match="password-protected"):
            operation(out.getvalue())


@pytest.mark.parametrize("data", [b"", b"hello", b"%PDF-1.7\n garbage", THREE[: len(THREE) // 3]])
def test_broken_input_is_a_4xx(data: bytes) -> None:
    for operation in (pdf_info, extract_text, render_pages):
        try:
            operation(data)
        except ApiError as exc:
            assert 400 <= exc.http_status < 500
        # pdfium or qpdf may repair a truncated file: then an answer is fine too


def test_extract_text_pages_and_form_feed() -> None:
    result = extract_text(THREE, pages="3,1")
    assert [page.strip() for page in result.pages] == ["gamma page", "alpha page"]
    assert result.text.count("\f") == 1


@pytest.mark.tools
def test_extract_text_agrees_with_pdftotext(tmp_path: Path) -> None:
    path = tmp_path / "three.pdf"
    path.write_bytes(THREE)
    theirs = subprocess.run(
        [require_tool("pdftotext"), str(path), "-"], capture_output=True, text=True, check=True
    ).stdout
    ours = extract_text(THREE).pages
    assert [page.strip() for page in theirs.split("\f") if page.strip()] == [page.strip() for page in ours]


def test_render_size_at_72_and_150_dpi() -> None:
    page = render_pages(THREE, dpi=72)[0]
    assert (page.page, page.width, page.height) == (1, 612, 792)
    image = Image.open(io.BytesIO(page.bytes))
    assert image.size == (612, 792) and image.format == "PNG"
    darkest = image.convert("L").getextrema()[0]
    assert isinstance(darkest, int) and darkest < 100  # the text is drawn
    page = render_pages(THREE, dpi=150, pages="2", fmt=RenderFormat.JPEG)[0]
    assert (page.page, page.width, page.height) == (2, 1275, 1650)
    assert Image.open(io.BytesIO(page.bytes)).format == "JPEG"


def test_render_bounds() -> None:
    with pytest.raises(InvalidInput, match="dpi"):
        render_pages(THREE, dpi=301)
    huge = make_pdf(["big"], size=(14_400, 14_400))
    with pytest.raises(TooLarge, match=r"\d pixels"):
        render_pages(huge, dpi=300)


def test_merge_keeps_order_and_names_a_bad_input() -> None:
    merged = merge_pdfs([THREE, make_pdf(["delta page"])])
    assert [page.strip() for page in extract_text(merged).pages] == [
        "alpha page",
        "beta page",
        "gamma page",
        "delta page",
    ]
    with pytest.raises(InvalidInput, match="file 2"):
        merge_pdfs([THREE, b"not a pdf"])
    with pytest.raises(InvalidInput, match="at least one"):
        merge_pdfs([])


def test_split_by_ranges() -> None:
    parts = split_pdf(THREE, ranges="1-2, 3")
    assert [pages_of(part) for part in parts] == [2, 1]
    assert extract_text(parts[1]).pages[0].strip() == "gamma page"
    with pytest.raises(InvalidInput, match="outside"):
        split_pdf(THREE, ranges="2-4")


def test_rotate_adds_to_the_existing_rotation() -> None:
    rotated = rotate_pdf(make_pdf(["x", "y"], rotate=90), degrees=180, pages="2")
    pdf = pikepdf.Pdf.open(io.BytesIO(rotated))
    assert [int(page.obj.get("/Rotate", 0)) for page in pdf.pages] == [90, 270]
    with pytest.raises(InvalidInput, match="90, 180 or 270"):
        rotate_pdf(THREE, degrees=45)


@pytest.mark.tools
def test_outputs_pass_qpdf_check_and_pdfinfo(tmp_path: Path) -> None:
    outputs = {
        "merged": merge_pdfs([THREE, THREE]),
        "split": split_pdf(THREE, ranges="2")[0],
        "rotated": rotate_pdf(THREE, degrees=90),
    }
    for name, data in outputs.items():
        path = tmp_path / f"{name}.pdf"
        path.write_bytes(data)
        subprocess.run([require_tool("qpdf"), "--check", str(path)], capture_output=True, check=True)
        described = subprocess.run(
            [require_tool("pdfinfo"), str(path)], capture_output=True, text=True, check=True
        ).stdout
        pages = int(next(line for line in described.splitlines() if line.startswith("Pages:")).split()[1])
        assert pages == {"merged": 6, "split": 1, "rotated": 3}[name]


def test_merging_the_same_file_twice_copies_its_resources_once() -> None:
    from PIL import Image

    pdf = pikepdf.Pdf.new()
    pdf.add_blank_page(page_size=(200, 200))
    image = pdf.make_stream(Image.effect_noise((300, 300), 50).convert("L").tobytes())
    image.Type, image.Subtype, image.Width, image.Height = pikepdf.Name.XObject, pikepdf.Name.Image, 300, 300
    image.ColorSpace, image.BitsPerComponent = pikepdf.Name.DeviceGray, 8
    pdf.pages[0].add_resource(image, pikepdf.Name.XObject, pikepdf.Name.Im0)
    pdf.pages[0].contents_add(pdf.make_stream(b"q 200 0 0 200 0 0 cm /Im0 Do Q"))
    out = io.BytesIO()
    pdf.save(out)
    single = out.getvalue()
    merged = merge_pdfs([single, single])
    assert pages_of(merged) == 2
    assert len(merged) < 1.2 * len(single)


def test_a_flate_bomb_is_refused_before_pdfium_inflates_it() -> None:
    from fileapi.convert.pdf_edit import compress_pdf

    bomb = flate_bomb(300)
    assert len(bomb) < 1_000_000
    for operation in (extract_text, render_pages):
        with pytest.raises(TooLarge, match="decodes to more than"):
            operation(bomb)
    assert compress_pdf(bomb).compressedSize <= len(bomb)  # qpdf leaves the over-limit stream as it is


def test_rendering_too_many_pixels_at_once_is_refused_before_rendering() -> None:
    many = make_pdf([f"page {n}" for n in range(60)])
    with pytest.raises(TooLarge, match="fewer pages or a lower dpi"):
        render_pages(many, pages="all", dpi=300)
