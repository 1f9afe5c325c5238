"""Page lists and page ranges, as users write them: '1,3,5', '2-4', 'all', '1-3, 7'."""

from __future__ import annotations

import re

from fileapi.errors import InvalidOption

_PART = re.compile(r"\s*(\d{1,6})\s*(?:-\s*(\d{1,6})\s*)?")
MAX_PAGE_NUMBER = 999_999  # _PART's six digits


def check_page_list(text: str) -> None:
    """Refuse, before any document is read, a page list that `parse_pages` would refuse for every document:
    malformed, reversed, or naming page 0 ('all' and an empty list pass).

    :raises InvalidInput: as `parse_ranges` words it.
    """
    if text.strip() and text.strip().lower() != "all":
        check_ranges(text)


def check_ranges(text: str) -> None:
    """Refuse, before any document is read, ranges that `parse_ranges` would refuse for every document: empty,
    malformed, reversed, or naming page 0.

    :raises InvalidInput: as `parse_ranges` words it.
    """
    parse_ranges(text, MAX_PAGE_NUMBER)


def parse_ranges(text: str, page_count: int) -> list[tuple[int, int]]:
    """Comma-separated ranges 'a-b' or single pages 'a' (1-based, inclusive, spaces tolerated).

    :returns: (first, last) pairs in the order given.
    :raises InvalidInput: empty, malformed, reversed, or outside 1..page_count (naming the part).
    """
    if not text or not text.strip():
        raise InvalidOption("give pages or ranges such as '1-3,5'")
    ranges: list[tuple[int, int]] = []
    for part in text.split(","):
        match = _PART.fullmatch(part)
        if match is None:
            raise InvalidOption(f"{part.strip()!r} is not a page or a range such as '2-4'")
        first = int(match.group(1))
        last = int(match.group(2)) if match.group(2) else first
        if first < 1 or last < 1:
            raise InvalidOption(f"{part.strip()!r}: pages are numbered from 1")
        if last < first:
            raise InvalidOption(f"{part.strip()!r} is reversed")
        if last > page_count:
            raise InvalidOption(f"{part.strip()!r} is outside the document's {page_count} page(s)")
        ranges.append((first, last))
    return ranges


def parse_pages(text: str | None, page_count: int, *, default_all: bool = True) -> list[int]:
    """Pages (1-based) of a list such as '1,3,5', '2-4' or 'all', in order, without repeats.

    :param default_all: None or '' means every page (else only the first).
    """
    if text is None or not text.strip():
        return list(range(1, page_count + 1)) if default_all else [1]
    if text.strip().lower() == "all":
        return list(range(1, page_count + 1))
    pages: dict[int, None] = {}
    for first, last in parse_ranges(text, page_count):
        pages.update(dict.fromkeys(range(first, last + 1)))
    return list(pages)
