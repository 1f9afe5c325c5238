"""pdf/split bounded: the pages of all ranges together are counted before any is copied, and the
parts are measured against the response limit as they are made (each carries its own resources)."""

from __future__ import annotations

import io
import os

import pikepdf
import pytest

from fileapi.convert.payload import response_limit
from fileapi.convert.pdf import MAX_SPLIT_PAGES, split_pdf
from fileapi.errors import TooLarge


def document(pages: int, *, shared_bytes: int = 0) -> bytes:
    """`pages` pages; with `shared_bytes`, every page uses one incompressible stream of that size."""
    pdf = pikepdf.Pdf.new()
    shared = pdf.make_stream(os.urandom(shared_bytes)) if shared_bytes else None
    for number in range(pages):
        page = pdf.add_blank_page(page_size=(612, 792))
        if shared is not None:
            page.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(X=shared))
        page.Contents = pdf.make_stream(b"%% page %d" % number)
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def test_ranges_holding_more_pages_than_the_limit_are_refused_before_copying() -> None:
    with pytest.raises(TooLarge, match=f"the 30 ranges hold 60,000 pages in all; at most {MAX_SPLIT_PAGES:,}"):
        split_pdf(document(2000), ranges=",".join(["1-2000"] * 30))


def test_ranges_up_to_the_limit_are_split() -> None:
    parts = split_pdf(document(2000), ranges="1-2000,1-1000,1001-2000,7")
    assert [len(pikepdf.open(io.BytesIO(part)).pages) for part in parts] == [2000, 1000, 1000, 1]


def test_parts_that_copy_a_shared_resource_past_the_response_limit_are_refused_while_splitting() -> None:
    data = document(40, shared_bytes=500_000)
    with response_limit(6_291_556), pytest.raises(TooLarge, match="the first 10 of 40 PDFs"):
        split_pdf(data, ranges=",".join(str(page) for page in range(1, 41)))
