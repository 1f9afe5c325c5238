"""Page edits in one list: reorder, delete (leave out), duplicate, and insert blank pages.

`order` is the new document's pages, comma-separated: a page number (`3`), a range (`5-8`, or `8-5` for the
pages in reverse), or `blank` (an empty page of the size and rotation of the page before it, or after it when
it comes first). A page left out is deleted: its page object is emptied, so its content is not written even
when a bookmark or a link still named it (those bookmarks are removed). A page listed twice is a copy that
shares its content stream with the first, so a duplicate costs a few hundred bytes.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from fileapi.convert import deadline
from fileapi.convert.pdf_errors import reading
from fileapi.convert.pdf_io import Source, open_pdf, save_pdf, write_pdf
from fileapi.convert.pdf_options import MAX_ORDER_CHARS
from fileapi.errors import InvalidOption, TooLarge

if TYPE_CHECKING:
    import pikepdf

# Pages of the result: as for a merge (fileapi.convert.pdf.MAX_MERGED_PAGES), each is a page dictionary to
# copy and write.
MAX_RESULT_PAGES = 5_000
BLANK = 0  # a blank page in a parsed order (pages are numbered from 1)
_ITEM = re.compile(r"\s*(?:(\d{1,6})\s*(?:-\s*(\d{1,6})\s*)?|(blank))\s*", re.IGNORECASE)


def parse_order(order: str, page_count: int) -> list[int]:
    """The pages of `order` (see the module), 1-based, with BLANK (0) for each blank page.

    :raises InvalidOption: empty, malformed, or a page outside 1..page_count (naming the item).
    :raises TooLarge: over 25,000 characters, or more than 5,000 pages in all (counted before any is listed).
    """
    if len(order) > MAX_ORDER_CHARS:
        raise TooLarge(f"order is {len(order):,} characters; at most {MAX_ORDER_CHARS:,}")
    if not order.strip():
        raise InvalidOption("order is empty: list the new document's pages, such as '3,1,2,blank,5-8'")
    items: list[tuple[int, int]] = []
    total = 0
    for item in order.split(","):
        match = _ITEM.fullmatch(item)
        if match is None:
            raise InvalidOption(f"{item.strip()!r} is not a page, a range such as '5-8', or 'blank'")
        if match.group(3):
            first = last = BLANK
        else:
            first = int(match.group(1))
            last = int(match.group(2)) if match.group(2) else first
            for page in (first, last):
                if not 1 <= page <= page_count:
                    raise InvalidOption(f"{item.strip()!r}: page {page} is outside the document's {page_count} page(s)")
        total += abs(last - first) + 1
        if total > MAX_RESULT_PAGES:
            raise TooLarge(f"order lists more than {MAX_RESULT_PAGES:,} pages")
        items.append((first, last))
    pages: list[int] = []
    for first, last in items:
        step = 1 if last >= first else -1
        pages.extend(range(first, last + step, step))
    return pages


def arrange_pages(data: bytes, *, order: str) -> bytes:
    """The document with the pages of `order`, in that order (see the module).

    :param order: up to 25,000 characters and 5,000 pages, such as '3,1,2,2,blank,5-8'.
    :raises InvalidInput: a malformed order or a page outside the document, or not a readable PDF.
    :raises TooLarge: an order over its bounds, or a document of more than 2,000 pages.
    """
    pdf = _arranged(data, order)
    return save_pdf(pdf)


def arrange_pages_file(source: str, out: str, *, order: str) -> None:
    """The file `source` with its pages arranged as `arrange_pages` does, into `out`."""
    write_pdf(_arranged(Path(source), order), Path(out))


def _arranged(source: Source, order: str) -> pikepdf.Pdf:
    if len(order) > MAX_ORDER_CHARS:  # before the document is opened
        raise TooLarge(f"order is {len(order):,} characters; at most {MAX_ORDER_CHARS:,}")
    pdf = open_pdf(source)
    with reading():
        originals = list(pdf.pages)
        chosen = parse_order(order, len(originals))
        _rebuild(pdf, originals, chosen)
    return pdf


def _rebuild(pdf: pikepdf.Pdf, originals: list[pikepdf.Page], chosen: list[int]) -> None:
    import pikepdf

    for index in range(len(originals) - 1, -1, -1):
        del pdf.pages[index]
    for position, number in enumerate(chosen):
        deadline.check()
        if number != BLANK:
            pdf.pages.append(originals[number - 1])  # a page already in the tree is appended as a copy
            continue
        neighbour = next((n for n in reversed(chosen[:position]) if n != BLANK), None)
        neighbour = neighbour or next((n for n in chosen[position:] if n != BLANK), 1)
        model = originals[neighbour - 1]
        blank = pdf.add_blank_page()
        blank.obj.MediaBox = pikepdf.Array([float(value) for value in model.mediabox])
        rotation = int(model.obj.get("/Rotate", 0))
        if rotation:
            blank.obj.Rotate = rotation
    kept = {number for number in chosen if number != BLANK}
    removed = {originals[number - 1].obj.objgen for number in range(1, len(originals) + 1) if number not in kept}
    if removed:
        _forget_pages(pdf, [originals[number - 1] for number in range(1, len(originals) + 1) if number not in kept])
        _prune_outline(pdf, removed)


def _forget_pages(pdf: pikepdf.Pdf, pages: list[pikepdf.Page]) -> None:
    """Empty the page dictionaries of deleted pages: what still refers to one (a link, a named destination)
    then reaches an empty dictionary, and the page's content, fonts and images are not written. Their form
    fields' widgets leave the form too (with a field's value, when no other page shows it)."""
    import pikepdf

    widgets: set[tuple[int, int]] = set()
    for page in pages:
        annotations = page.obj.get("/Annots")
        if isinstance(annotations, pikepdf.Array):
            widgets.update(a.objgen for a in annotations if isinstance(a, pikepdf.Dictionary) and a.is_indirect)
        for key in list(page.obj.keys()):
            del page.obj[key]
    form = pdf.Root.get("/AcroForm")
    if widgets and isinstance(form, pikepdf.Dictionary) and isinstance(form.get("/Fields"), pikepdf.Array):
        form.Fields = pikepdf.Array(_kept_fields(list(form.Fields), widgets, 0))


def _kept_fields(fields: list[pikepdf.Object], widgets: set[tuple[int, int]], depth: int) -> list[pikepdf.Object]:
    """`fields` without the widgets of deleted pages, and without the fields left with no widget."""
    import pikepdf

    kept: list[pikepdf.Object] = []
    for field in fields:
        if not isinstance(field, pikepdf.Dictionary) or field.objgen in widgets:
            continue
        kids = field.get("/Kids")
        if isinstance(kids, pikepdf.Array) and depth < 32:
            remaining = _kept_fields(list(kids), widgets, depth + 1)
            if not remaining:
                continue
            field.Kids = pikepdf.Array(remaining)
        kept.append(field)
    return kept


def _prune_outline(pdf: pikepdf.Pdf, removed: set[tuple[int, int]]) -> None:
    """Remove the bookmarks that lead to a deleted page (their children move up in their place)."""
    import pikepdf

    if "/Outlines" not in pdf.Root:
        return

    def target(item: pikepdf.OutlineItem) -> tuple[int, int] | None:
        destination: object = item.destination
        if destination is None and item.action is not None and item.action.get("/S") == pikepdf.Name.GoTo:
            destination = item.action.get("/D")
        if (
            isinstance(destination, pikepdf.Array)
            and len(destination)
            and isinstance(destination[0], pikepdf.Dictionary)
        ):
            return destination[0].objgen
        return None

    def pruned(items: list[pikepdf.OutlineItem]) -> list[pikepdf.OutlineItem]:
        kept: list[pikepdf.OutlineItem] = []
        for item in items:
            item.children[:] = pruned(list(item.children))
            if target(item) in removed:
                kept.extend(item.children)
            else:
                kept.append(item)
        return kept

    with pdf.open_outline() as outline:
        outline.root[:] = pruned(list(outline.root))
