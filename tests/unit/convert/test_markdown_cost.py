"""Markdown refused (413) before comrak runs when its tables cannot fit the response or its tree
would not fit in memory; the same constructs at a smaller size still render."""

from __future__ import annotations

import pytest

from fileapi.convert.markdown_cost import BUDGET_BYTES, Table, tables
from fileapi.convert.markdown_html import markdown_to_html
from fileapi.convert.payload import response_limit
from fileapi.errors import TooLarge

LIMIT = 6_291_556


def wide_table(columns: int, rows: int) -> bytes:
    """A header of `columns` cells and `rows` one-character rows (each gets every column)."""
    return ("|a" * columns + "|\n" + "|-" * columns + "|\n" + "x\n" * rows).encode()


def test_tables_are_found_by_their_delimiter_rows_with_the_rows_that_can_follow() -> None:
    text = "|a|b|\n|-|-|\n| 1 | 2 |\n\npara\n\n---\n\na | b\n--|--\n1|2\n3|4"
    assert tables(text) == [Table(line=2, columns=2, rows=2), Table(line=10, columns=2, rows=3)]


def test_a_table_whose_cells_cannot_fit_the_response_is_refused_at_once() -> None:
    with (
        response_limit(LIMIT),
        pytest.raises(TooLarge, match=r"the table at line 2 \(10,001 rows of 1,000 cells") as refused,
    ):
        markdown_to_html(wide_table(1000, 10_000))
    assert "would be about 100.0 MB, over the response limit of 6,291,556 bytes" in str(refused.value)


def test_a_smaller_table_renders_every_cell() -> None:
    with response_limit(LIMIT):
        html = markdown_to_html(wide_table(100, 500)).decode()
    assert html.count("<td>") == 100 * 500 and html.count("<td>x</td>") == 500


def test_markup_whose_tree_would_not_fit_in_memory_is_refused() -> None:
    with pytest.raises(TooLarge, match=rf"over the {BUDGET_BYTES // 2**20} MiB .* 1,000,000 emphasis marks"):
        markdown_to_html(b"*a* " * 500_000)


def test_less_of_the_same_markup_renders() -> None:
    assert markdown_to_html(b"*a* " * 100_000).count(b"<em>a</em>") == 100_000


def test_link_references_are_not_expanded_past_the_input_by_comrak() -> None:
    text = b"[a]: http://x/" + b"y" * 1000 + b"\n\n" + b"[a] " * 1000
    assert len(markdown_to_html(text)) < 2 * len(text)
