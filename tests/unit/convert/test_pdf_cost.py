"""The PDF cost prediction (fileapi.convert.pdf_cost): draws counted once per object and multiplied along
the references, pattern fills per painting operator, loops refused, before pdfium parses anything."""

from __future__ import annotations

import io
import zlib

import pikepdf
import pytest

from fileapi.convert import pdf_cost
from fileapi.convert.pdf import extract_text, render_pages
from fileapi.convert.pdf_io import open_pdf
from fileapi.errors import InvalidInput, TooLarge
from tests.hostile_files import _pdf, _stream, self_drawing_form_pdf, xobject_fanout_pdf


def page_cost(data: bytes, number: int = 1) -> pdf_cost.Cost:
    pdf = open_pdf(data)  # held while the walk reads its objects
    return pdf_cost._Walker().page(pdf.pages[number - 1].obj, number)


def test_nested_forms_are_counted_by_multiplication_not_followed() -> None:
    cost = page_cost(xobject_fanout_pdf(8, 10))
    assert cost.draws == sum(10**level for level in range(9))
    assert cost.most["form XObject 13 0"] == 10**8


def test_a_fanout_of_ten_to_the_eighth_is_refused_naming_the_form() -> None:
    with pytest.raises(TooLarge, match=r"form XObject 13 0 is drawn 100,000,000 times"):
        render_pages(xobject_fanout_pdf(8, 10))
    with pytest.raises(TooLarge, match=r"reading the text of page 1 would need"):
        extract_text(xobject_fanout_pdf(8, 10))


def test_ten_to_the_fifth_draws_are_within_the_budget() -> None:
    cost = page_cost(xobject_fanout_pdf(5, 10))
    assert cost.peak_bytes < pdf_cost.BUDGET_BYTES and cost.seconds < pdf_cost.BUDGET_SECONDS
    assert render_pages(xobject_fanout_pdf(5, 10), dpi=72)[0].width == 612


def test_a_pattern_set_once_is_charged_for_every_fill_after_it() -> None:
    cost = page_cost(xobject_fanout_pdf(3, 10, pattern=True))
    assert cost.patterns == 1 + 10 + 100 + 1000
    with pytest.raises(TooLarge, match=r"tiling pattern 11 0 is drawn 1,000,000 times"):
        render_pages(xobject_fanout_pdf(6, 10, pattern=True))


def test_a_form_that_draws_itself_is_refused() -> None:
    with pytest.raises(TooLarge, match="draws form XObject 5 0 inside itself"):
        render_pages(self_drawing_form_pdf())


def page_drawing(content: bytes) -> bytes:
    """One page whose content is `content`, drawing form /F1 (a fresh document per call)."""
    pdf = pikepdf.Pdf.new()
    page = pdf.add_blank_page(page_size=(100, 100))
    form = pdf.make_stream(b"0 0 1 1 re f", Type=pikepdf.Name.XObject, Subtype=pikepdf.Name.Form, BBox=[0, 0, 1, 1])
    page.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary({"/F1": form}))
    page.Contents = pdf.make_stream(content)
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def test_escaped_names_and_comments_before_the_operator_are_counted() -> None:
    cost = page_cost(page_drawing(b"/F#31 Do /F1 % a comment\n Do /F1\nDo (/F1 Do) Tj"))
    assert [count for label, count in cost.most.items() if label.startswith("form XObject")] == [4]  # 3, and a string


def test_annotation_appearances_are_counted() -> None:
    data = page_drawing(b"")
    pdf = pikepdf.open(io.BytesIO(data))
    form = pdf.pages[0].Resources.XObject.F1
    pdf.pages[0].Annots = pdf.make_indirect(
        pikepdf.Array([pikepdf.Dictionary(Subtype=pikepdf.Name.Square, Rect=[0, 0, 1, 1], AP={"/N": form})] * 3)
    )
    out = io.BytesIO()
    pdf.save(out)
    assert page_cost(out.getvalue()).draws == 3


def test_content_volume_counts_at_every_draw() -> None:
    leaf = b"0 0 1 1 re f\n" * 1000
    data = xobject_fanout_pdf(2, 10, leaf=leaf)
    assert page_cost(data).content_bytes >= 100 * len(leaf)


def test_an_undecodable_form_is_invalid_input() -> None:
    form = b"/Type /XObject /Subtype /Form /BBox [0 0 10 10]"
    broken = _stream(form, b"not zlib at all")
    data = _pdf(
        {
            1: b"<< /Type /Catalog /Pages 2 0 R >>",
            2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            3: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 9 9] /Resources << /XObject << /X 5 0 R >> >> "
            b"/Contents 4 0 R >>",
            4: _stream(b"", zlib.compress(b"/X Do")),
            5: broken,
        }
    )
    with pytest.raises(InvalidInput, match=r"page 1.s content cannot be decoded"):
        render_pages(data)
