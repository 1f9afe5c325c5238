"""What rendering Markdown with comrak will cost, predicted from the text before comrak sees it.

comrak keeps its whole tree in memory while it renders, and a GFM table gives every row as many
cells as its delimiter row has columns, so a short text can stand for a huge tree and answer:
1,000 columns and 10,000 rows of one character are 24 KB of Markdown and 100 MB of HTML (1.88 GB
at peak). Peak memory above the process, measured per feature on 200,000 repeats each
(`markdown_to_html` in a fresh process, VmHWM): about 100 bytes per byte of text, 150 per line,
340 per `*` or `_` (an emphasis `*a*` 670), 150 per `>`, `~`, `[` or backquote, 180 per table
cell. Link references are no risk: comrak stops expanding them past the size of the input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fileapi.convert import payload
from fileapi.errors import TooLarge

BUDGET_BYTES = 256 * 1024 * 1024  # half the Text function's 512 MB
BYTES_PER_CHARACTER = 100
BYTES_PER_LINE = 150
BYTES_PER_EMPHASIS_MARK = 340
BYTES_PER_MARK = 150
BYTES_PER_CELL = 180
HTML_PER_CELL = len("<td></td>\n")
# A delimiter row: cells of dashes with optional colons, separated by pipes.
_DELIMITER_ROW = re.compile(r"^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$", re.MULTILINE)
_BLANK_LINE = re.compile(r"\n[ \t]*(?:\n|$)")


@dataclass(frozen=True)
class Table:
    line: int  # of its delimiter row, 1-based
    columns: int
    rows: int  # at most: every line up to the next blank one

    @property
    def cells(self) -> int:
        return self.columns * self.rows


def tables(text: str) -> list[Table]:
    """The tables of `text` by their delimiter rows, each with the rows that can follow it."""
    found: list[Table] = []
    for match in _DELIMITER_ROW.finditer(text):
        if "|" not in match.group(0):
            continue  # a line of dashes alone is a thematic break or a setext heading
        columns = len([cell for cell in match.group(0).strip().strip("|").split("|")])
        blank = _BLANK_LINE.search(text, match.end())
        body = text[match.end() : blank.start() if blank else len(text)].strip("\n")
        rows = 1 + (body.count("\n") + 1 if body else 0)  # the header row and the body's lines
        found.append(Table(text.count("\n", 0, match.start()) + 1, columns, rows))
    return found


def check_markdown_cost(text: str) -> None:
    """Refuse Markdown whose tables cannot fit the response or whose tree would not fit the budget.

    :raises TooLarge: naming the largest table or the marks that cost most, and what to change.
    """
    found = tables(text)
    largest = max(found, key=lambda table: table.cells, default=None)
    cells = sum(table.cells for table in found)
    if largest is not None:
        payload.check(
            f"the HTML of the table at line {largest.line} ({largest.rows:,} rows of {largest.columns:,} cells; "
            "every row gets a cell in each column)",
            cells * HTML_PER_CELL,
            binary=False,
            hint="split the table or give it fewer columns",
        )
    emphasis = text.count("*") + text.count("_")
    marks = sum(text.count(mark) for mark in ">~[`")
    parts = {
        "text": BYTES_PER_CHARACTER * len(text) + BYTES_PER_LINE * text.count("\n"),
        f"{emphasis:,} emphasis marks (* and _)": BYTES_PER_EMPHASIS_MARK * emphasis,
        f"{marks:,} quote, link, code and strikethrough marks": BYTES_PER_MARK * marks,
        f"{cells:,} table cells": BYTES_PER_CELL * cells,
    }
    total = sum(parts.values())
    if total > BUDGET_BYTES:
        most = max(parts, key=parts.__getitem__)
        raise TooLarge(
            f"rendering this Markdown would need about {total / 2**20:,.0f} MiB of memory, over the "
            f"{BUDGET_BYTES // 2**20} MiB this service allows, most of it for its {most}; send less text "
            "or less markup"
        )
