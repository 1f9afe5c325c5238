"""pdf/split bounded: the pages of all ranges together are counted before any is copied, and the
parts are measured against the response limit as they are made (each carries its own resources)."""

from __future__ import annotations

import io

import pikepdf
import pytest

from fileapi.convert.payload import response_limit
from fileapi.convert.pdf import MAX_SPLIT_PAGES, split_pdf
from fileapi.errors import TooLarge
from tests.hostile_files import pdf_of_pages


def test_ranges_holding_more_pages_than_the_limit_are_refused_before_copying() -> None:
    with pytest.raises(TooLarge, match=f"the 30 ranges hold 60,000 pages in all; at most {MAX_SPLIT_PAGES:,}"):
        split_pdf(pdf_of_pages(2000), ranges=",".join(["1-2000"] * 30))


def test_ranges_up_to_the_limit_are_split() -> None:
    parts = split_pdf(pdf_of_pages(2000), ranges="1-2000,1-1000,1001-2000,7")
    assert [len(pikepdf.open(io.BytesIO(part)).pages) for part in parts] == [2000, 1000, 1000, 1]


def test_parts_that_copy_a_shared_resource_past_the_response_limit_are_refused_while_splitting() -> None:
    data = pdf_of_pages(40, shared_bytes=500_000)
    with response_limit(6_291_556), pytest.raises(TooLarge, match="the first 10 of 40 PDFs"):
        split_pdf(data, ranges=",".join(str(page) for page in range(1, 41)))
