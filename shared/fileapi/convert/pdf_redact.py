"""Redaction that removes: text, pattern matches and areas taken out of the PDF, not covered over.

1. The areas: those given (`page,x,y,width,height`, points from the page's lower left corner, in the page's
   unrotated coordinates), and one per line of each text or pattern match on the pages (pdfium's text page
   of the document with its annotations' appearances flattened: fileapi.convert.pdf_redact_find).
2. On each page with areas: the glyphs under them removed from the content streams, forms included (the rest
   keep their places: fileapi.convert.pdf_redact_content), inline images under them removed, image pixels
   under them overwritten (fileapi.convert.pdf_redact_images), annotations under them removed (a form
   field's value cleared), its thumbnail image (/Thumb) removed, and each area filled with the fill colour.
3. The strings redacted (each match, and the text under each area given) removed from the rest of the file:
   metadata and XMP, annotations, form values, bookmarks and embedded files
   (fileapi.convert.pdf_redact_document).
Objects nothing refers to any more (the old content streams and images) are not written.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fileapi.convert import deadline
from fileapi.convert.pdf import check_content_streams, repaired_copy
from fileapi.convert.pdf_errors import damaged, reading
from fileapi.convert.pdf_fonts import FontMetrics
from fileapi.convert.pdf_io import Source, open_pdf, save_pdf, write_pdf
from fileapi.convert.pdf_options import DEFAULT_FILL
from fileapi.convert.pdf_redact_areas import AreaIndex, Rect
from fileapi.convert.pdf_redact_content import check_form_draws, redact_page_content
from fileapi.convert.pdf_redact_document import Scrubber, clear_annotations_under, scrub_document
from fileapi.convert.pdf_redact_find import Found, Terms, find_on_pages, parse_terms
from fileapi.convert.pdf_redact_images import overwrite_images

if TYPE_CHECKING:
    import pikepdf


@dataclass(frozen=True)
class RedactResult:
    data: bytes
    redactions: int  # areas redacted: those given and one per line of each match (the X-Redactions header)


def redact_pdf(
    data: bytes,
    *,
    texts: list[str] | None = None,
    patterns: list[str] | None = None,
    areas: list[str] | None = None,
    fill: str = DEFAULT_FILL,
) -> RedactResult:
    """The document with every occurrence of `texts`, every match of `patterns` and everything under `areas`
    removed (see the module), each area filled with `fill`.

    :param texts: up to 100 strings of 1..500 characters, matched exactly (case included; any run of white
        space matches any other, line ends included).
    :param patterns: up to 20 regular expressions of 1..500 characters in RE2's syntax (no backtracking: time
        linear in the text; no lookarounds or backreferences).
    :param areas: up to 1,000 rectangles 'page,x,y,width,height' in points, from the page's lower left corner.
    :param fill: '#rrggbb', default black.
    :returns: the PDF and the number of areas redacted (given and found: at most 10,000).
    :raises InvalidInput: nothing to redact, a malformed option, an area off the document, or not a readable PDF.
    :raises TooLarge: more areas, texts or patterns than the bounds, a page's content over 2 MiB under an area,
        or a document of more than 2,000 pages.
    """
    pdf, count = _redacted(data, texts or [], patterns or [], areas or [], fill, None)
    return RedactResult(save_pdf(pdf), count)


def redact_pdf_file(
    source: str,
    out: str,
    *,
    texts: list[str] | None = None,
    patterns: list[str] | None = None,
    areas: list[str] | None = None,
    fill: str = DEFAULT_FILL,
) -> int:
    """The file `source` redacted as `redact_pdf` does into `out` (qpdf and pdfium read it on demand; a copy
    with flattened annotations, when needed, is written beside `out`); the number of areas redacted."""
    with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(out))) as scratch:
        pdf, count = _redacted(Path(source), texts or [], patterns or [], areas or [], fill, Path(scratch))
        write_pdf(pdf, Path(out))
    return count


def _redacted(
    source: Source, texts: list[str], patterns: list[str], areas: list[str], fill: str, scratch: Path | None
) -> tuple[pikepdf.Pdf, int]:
    pdf = check_content_streams(source)  # before pdfium reads the pages' text
    terms = parse_terms(pdf, texts=texts, patterns=patterns, areas=areas, fill=fill)
    with reading():
        for index, page in enumerate(pdf.pages):  # the pages pdfium will read, before it reads them
            if terms.texts or terms.patterns or index in terms.areas:
                check_form_draws(page, index + 1)
    found = _found(_searched_copy(source, pdf, scratch), terms)
    with reading():
        _push_down_resources(pdf)
        fonts: dict[tuple[int, int], FontMetrics | None] = {}
        for index, page in enumerate(pdf.pages):
            deadline.check()
            page_areas = terms.areas.get(index, []) + found.areas.get(index, [])
            if page_areas:
                _redact_page(pdf, page, page_areas, terms.fill, fonts)
        scrub_document(pdf, Scrubber(found.strings | set(terms.texts), terms.patterns))
        pdf.remove_unreferenced_resources()
    return pdf, terms.area_count + found.count


def _searched_copy(source: Source, pdf: pikepdf.Pdf, scratch: Path | None) -> Source:
    """The document whose text pdfium searches: with its annotations' appearances (form fields, stamps, free
    text, signatures) flattened into the pages when it has any, since pdfium's text page reads page content only;
    a match there then gives an area over the annotation, which removes it (a form field: its value)."""
    import pikepdf

    for page in pdf.pages:
        annotations = page.obj.get("/Annots")
        if isinstance(annotations, pikepdf.Array) and any(
            isinstance(annotation, pikepdf.Dictionary) and "/AP" in annotation for annotation in annotations
        ):
            break
    else:
        return source
    copy = open_pdf(source)
    with reading():
        copy.flatten_annotations(mode="all")
        if scratch is None:
            return save_pdf(copy)
        path = scratch / "searched.pdf"
        write_pdf(copy, path)
        return path


def _found(source: Source, terms: Terms) -> Found:
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(str(source) if isinstance(source, Path) else source)
    except pdfium.PdfiumError:
        try:
            document = pdfium.PdfDocument(repaired_copy(source.read_bytes() if isinstance(source, Path) else source))
        except pdfium.PdfiumError as exc:
            raise damaged("the body", exc) from None
    try:
        return find_on_pages(document, terms)
    finally:
        document.close()


def _redact_page(
    pdf: pikepdf.Pdf,
    page: pikepdf.Page,
    areas: list[Rect],
    fill: tuple[float, float, float],
    fonts: dict[tuple[int, int], FontMetrics | None],
) -> None:
    edit = redact_page_content(pdf, page, AreaIndex(areas), fonts)
    if "/Thumb" in page.obj:  # a picture of the page as it was: readers draw their own without one
        del page.obj["/Thumb"]
    overwrite_images(pdf, edit.images, fill)
    clear_annotations_under(pdf, page, areas)
    red, green, blue = fill
    boxes = " ".join(f"{a.x0:.3f} {a.y0:.3f} {a.x1 - a.x0:.3f} {a.y1 - a.y0:.3f} re" for a in areas)
    page.contents_add(pdf.make_stream(b"q\n"), prepend=True)
    page.contents_add(pdf.make_stream(f"\nQ\nq {red:.4f} {green:.4f} {blue:.4f} rg {boxes} f Q\n".encode()))


def _push_down_resources(pdf: pikepdf.Pdf) -> None:
    """Give every page its own /Resources and take them off the page tree's nodes (a page's replaced forms and
    images are then not kept alive by an ancestor's dictionary that nothing else uses)."""
    import pikepdf

    for page in pdf.pages:
        if "/Resources" in page.obj:
            continue
        node: Any = page.obj.get("/Parent")
        hops = 0
        while isinstance(node, pikepdf.Dictionary) and hops < 64:
            if "/Resources" in node:
                page.obj.Resources = node.Resources
                break
            node, hops = node.get("/Parent"), hops + 1
    seen: set[tuple[int, int]] = set()
    for page in pdf.pages:
        node = page.obj.get("/Parent")
        while isinstance(node, pikepdf.Dictionary) and node.objgen not in seen:
            seen.add(node.objgen)
            if "/Resources" in node:
                del node["/Resources"]
            node = node.get("/Parent")
