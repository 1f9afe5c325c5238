"""Page edits (reorder, delete, duplicate, blank), checked with pdftotext, pdfinfo and qpdf."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pikepdf
import pytest

from fileapi.convert.pdf_options import MAX_ORDER_CHARS
from fileapi.convert.pdf_pages import MAX_RESULT_PAGES, arrange_pages, arrange_pages_file, parse_order
from fileapi.errors import InvalidInput, TooLarge
from tests.helpers import require_tool
from tests.pdf_fixtures import make_form_pdf, make_pdf

EIGHT = make_pdf([f"page number {n}" for n in range(1, 9)])


def mixed_sizes() -> bytes:
    """Page 1 letter, page 2 A4 landscape by /Rotate 90, page 3 A5 (each with its number as text)."""
    pdf = pikepdf.Pdf.new()
    for number, (size, rotate) in enumerate([((612, 792), 0), ((595, 842), 90), ((420, 595), 0)], start=1):
        part = pikepdf.Pdf.open(io.BytesIO(make_pdf([f"page number {number}"], size=size, rotate=rotate)))
        pdf.pages.extend(part.pages)
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def page_texts(path: Path) -> list[str]:
    out = subprocess.run([require_tool("pdftotext"), str(path), "-"], capture_output=True, text=True, check=True)
    return [" ".join(page.split()) for page in out.stdout.split("\f")[:-1]]


def page_sizes(path: Path) -> list[str]:
    out = subprocess.run(
        [require_tool("pdfinfo"), "-f", "1", "-l", "9999", str(path)], capture_output=True, text=True, check=True
    ).stdout
    sizes = [line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("Page") and "size" in line]
    rotations = [line.split(":", 1)[1].strip() for line in out.splitlines() if " rot:" in line]
    return [f"{size} rot {rotation}" for size, rotation in zip(sizes, rotations, strict=True)]


@pytest.mark.tools
def test_reorder_duplicate_blank_and_range(tmp_path: Path) -> None:
    path = tmp_path / "out.pdf"
    path.write_bytes(arrange_pages(EIGHT, order="3,1,2,2,blank,5-8"))
    assert page_texts(path) == [
        "page number 3", "page number 1", "page number 2", "page number 2", "",
        "page number 5", "page number 6", "page number 7", "page number 8",
    ]  # fmt: skip
    assert (
        "No syntax or stream encoding errors"
        in subprocess.run(
            [require_tool("qpdf"), "--check", str(path)], capture_output=True, text=True, check=True
        ).stdout
    )


@pytest.mark.tools
def test_a_reversed_range_reverses(tmp_path: Path) -> None:
    path = tmp_path / "out.pdf"
    path.write_bytes(arrange_pages(EIGHT, order="8-6, 1"))
    assert page_texts(path) == ["page number 8", "page number 7", "page number 6", "page number 1"]


@pytest.mark.tools
def test_a_blank_page_takes_its_neighbour_s_size(tmp_path: Path) -> None:
    path = tmp_path / "out.pdf"
    path.write_bytes(arrange_pages(mixed_sizes(), order="blank,3,2,blank,1,blank"))
    a5, a4, letter = "420 x 595 pts (A5) rot 0", "595 x 842 pts (A4) rot 90", "612 x 792 pts (letter) rot 0"
    assert page_sizes(path) == [a5, a5, a4, a4, letter, letter]
    assert page_texts(path)[0::3] == ["", ""]


@pytest.mark.tools
def test_a_deleted_page_is_gone_from_the_file(tmp_path: Path) -> None:
    pdf = pikepdf.Pdf.open(io.BytesIO(make_pdf(["keep this", "secret page", "keep that"])))
    with pdf.open_outline() as outline:
        outline.root.extend([pikepdf.OutlineItem("To the secret", 1), pikepdf.OutlineItem("To the end", 2)])
    source = io.BytesIO()
    pdf.save(source)
    path = tmp_path / "out.pdf"
    path.write_bytes(arrange_pages(source.getvalue(), order="1,3"))
    assert page_texts(path) == ["keep this", "keep that"]
    qdf = subprocess.run(
        [require_tool("qpdf"), "--qdf", "--object-streams=disable", str(path), "-"], capture_output=True, check=True
    ).stdout
    assert b"secret page" not in qdf and b"To the secret" not in qdf and b"To the end" in qdf
    with pikepdf.Pdf.open(path) as result, result.open_outline() as outline:
        assert [item.title for item in outline.root] == ["To the end"]
        destination = outline.root[0].destination
        assert isinstance(destination, pikepdf.Array) and destination[0].objgen == result.pages[1].obj.objgen


@pytest.mark.tools
def test_a_deleted_page_s_form_fields_leave_the_form(tmp_path: Path) -> None:
    from fileapi.convert.pdf import merge_pdfs
    from fileapi.convert.pdf_forms import fill_form

    filled = fill_form(make_form_pdf(), fields={"name": "Ada Confidential"}, flatten=False)
    path = tmp_path / "out.pdf"
    path.write_bytes(arrange_pages(merge_pdfs([make_pdf(["cover"]), filled]), order="1"))
    qdf = subprocess.run(
        [require_tool("qpdf"), "--qdf", "--object-streams=disable", str(path), "-"], capture_output=True, check=True
    ).stdout
    assert b"Ada Confidential" not in qdf
    with pikepdf.Pdf.open(path) as result:
        assert "/AcroForm" not in result.Root or len(result.Root.AcroForm.Fields) == 0


def test_a_duplicate_shares_its_content_stream() -> None:
    result = pikepdf.Pdf.open(io.BytesIO(arrange_pages(EIGHT, order="1,1,1")))
    assert len({page.obj.objgen for page in result.pages}) == 3
    assert len({page.obj.Contents.objgen for page in result.pages}) == 1


def test_file_variant(tmp_path: Path) -> None:
    source, out = tmp_path / "in.pdf", tmp_path / "out.pdf"
    source.write_bytes(EIGHT)
    arrange_pages_file(str(source), str(out), order="2")
    assert len(pikepdf.Pdf.open(out).pages) == 1


def test_parse_order() -> None:
    assert parse_order("3,1,2,2,blank,5-8", 8) == [3, 1, 2, 2, 0, 5, 6, 7, 8]
    assert parse_order(" 2 - 1 , BLANK ", 2) == [2, 1, 0]


@pytest.mark.parametrize(
    ("order", "reason"),
    [
        ("", "empty"),
        ("1,,2", "is not a page"),
        ("0", "outside"),
        ("9", "outside"),
        ("2-9", "outside"),
        ("1-", "is not a page"),
        ("first", "is not a page"),
        ("1.5", "is not a page"),
    ],
)
def test_a_bad_order_is_invalid_input(order: str, reason: str) -> None:
    with pytest.raises(InvalidInput, match=reason):
        arrange_pages(EIGHT, order=order)


def test_the_page_bound_on_both_sides() -> None:
    at_limit = ",".join(["1-8"] * (MAX_RESULT_PAGES // 8))
    assert len(parse_order(at_limit, 8)) == MAX_RESULT_PAGES
    with pytest.raises(TooLarge, match="more than 5,000 pages"):
        parse_order(at_limit + ",1", 8)
    with pytest.raises(InvalidInput, match="outside"):
        parse_order("1-999999", 8)


def test_a_million_entries_are_refused_before_the_document_is_read() -> None:
    with pytest.raises(TooLarge, match="characters"):
        arrange_pages(b"not even a pdf", order=",".join(["1"] * 1_000_000))
    assert len(",".join(str(n) for n in range(1, MAX_RESULT_PAGES + 1))) <= MAX_ORDER_CHARS
