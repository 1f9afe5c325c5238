"""PDF: info, text extraction and page rendering (pypdfium2), merge, split and rotate (pikepdf).

Measured on this machine (pikepdf against pypdf, same process): merging 50 corpus PDFs 0.38 s
against 2.70 s (7.2x) with a 3% smaller file; splitting 100 pages into 100 files 0.017 s against
0.117 s (7x). So structure operations use pikepdf (qpdf's binding); reading text and rendering
use pdfium, as ARCHITECTURE.md measured.

Bounds: at most 2,000 pages per document and 5,000 per merge; a rendered page at most
50 megapixels. Encrypted PDFs that open with the empty password are processed; ones that need a
password are 400 invalid_input.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from fileapi.convert import deadline, fallbacks, payload
from fileapi.convert.pages import parse_pages, parse_ranges
from fileapi.convert.pdf_cost import check_page_costs
from fileapi.convert.pdf_errors import damaged, reading
from fileapi.convert.pdf_io import MAX_PAGES, Source, check_header, open_pdf, save_pdf
from fileapi.errors import InvalidInput, TooLarge

if TYPE_CHECKING:
    import pikepdf
    from PIL import Image

MAX_MERGED_PAGES = 5_000
# Pages split out in one request, all ranges together: each costs about 0.33 ms to copy and write
# (30 ranges of a 2,000-page document, 60,000 pages, took 19.7 s).
MAX_SPLIT_PAGES = 5_000
MAX_RENDER_PIXELS = 50_000_000
# All pages of one render-page call: far more pixels than fit a 6 MB answer, refused before rendering.
MAX_RENDER_TOTAL_PIXELS = 200_000_000
_METADATA_KEYS = {
    "/Title": "title",
    "/Author": "author",
    "/Subject": "subject",
    "/Keywords": "keywords",
    "/Producer": "producer",
    "/Creator": "creator",
}


def repaired_copy(data: bytes, what: str = "the body") -> bytes:
    """The document rewritten by qpdf, which rebuilds broken cross-reference tables and streams (for
    pdfium and pypdf, which give up on files qpdf can mend).

    :raises InvalidInput: qpdf cannot open it either.
    """
    pdf = open_pdf(data, what=what)
    with reading(what):
        return save_pdf(pdf)


@dataclass(frozen=True)
class PdfInfo:
    pageCount: int
    pageSizes: list[dict[str, float]]
    metadata: dict[str, str]
    encrypted: bool


def pdf_info(data: bytes) -> PdfInfo:
    """Page count, page sizes in PDF points as displayed (width and height swapped for /Rotate 90
    or 270), the info dictionary's title, author, subject, keywords, producer and creator, and
    whether the file is encrypted (one that opens with the empty password still answers)."""
    pdf = open_pdf(data)
    with reading():
        return _info(pdf)


def _info(pdf: pikepdf.Pdf) -> PdfInfo:
    sizes = []
    for page in pdf.pages:
        box = page.mediabox
        width, height = abs(float(box[2]) - float(box[0])), abs(float(box[3]) - float(box[1]))
        if int(page.obj.get("/Rotate", 0)) % 180 == 90:
            width, height = height, width
        sizes.append({"width": round(width, 2), "height": round(height, 2)})
    metadata = {}
    for key, name in _METADATA_KEYS.items():
        value = pdf.docinfo.get(key) if pdf.docinfo is not None else None
        if value is not None:
            text = str(value).strip()
            if text:
                metadata[name] = text
    return PdfInfo(pageCount=len(pdf.pages), pageSizes=sizes, metadata=metadata, encrypted=pdf.is_encrypted)


def check_content_streams(data: Source) -> pikepdf.Pdf:
    """The document opened by qpdf, after refusing pages whose content would cost pdfium more than it may do
    (decoded size, draws, forms that draw themselves: fileapi.convert.pdf_cost), before pdfium reads them.

    :raises TooLarge: a page over the budgets (the message says which and why).
    :raises InvalidInput: a page's content cannot be decoded, or not a readable PDF.
    """
    from fileapi.convert.pdf_cost import check_page_costs

    pdf = open_pdf(data)
    check_page_costs(pdf, list(range(1, len(pdf.pages) + 1)), action="redacting")
    return pdf


MAX_FORM_FIELDS = 10_000


def forms_are_drawable(pdf: pikepdf.Pdf) -> bool:
    """False for a form field tree that names a field twice or is too large.

    A few kilobytes of /Kids that list the same field twice at each level (qpdf's
    shared-unnamed-field.pdf) make pdfium's form filler walk 2^depth fields: it never finished. Such
    pages are rendered without drawing their form fields.
    """
    import pikepdf

    form = pdf.Root.get("/AcroForm")
    fields = form.get("/Fields") if isinstance(form, pikepdf.Dictionary) else None
    if not isinstance(fields, pikepdf.Array):
        return True
    seen: set[tuple[int, int]] = set()
    pending = list(fields)
    while pending:
        node = pending.pop()
        if not isinstance(node, pikepdf.Dictionary):
            continue
        key = node.objgen
        if key != (0, 0):
            if key in seen:
                return False
            seen.add(key)
        if len(seen) > MAX_FORM_FIELDS:
            return False
        kids = node.get("/Kids")
        if isinstance(kids, pikepdf.Array):
            pending.extend(kids)
    return True


def _pdfium(data: bytes, pages: str | None, *, default_all: bool, action: str) -> tuple[Any, bool, list[int]]:
    """The document opened by pdfium (when pdfium cannot open it, the copy qpdf repaired), whether its form
    fields can be drawn (`forms_are_drawable`), and the chosen pages (`parse_pages`), whose content costs
    were predicted first (`pdf_cost`: pdfium has no bound of its own on draws or decoded content).

    :param action: what is done with the pages ('rendering', 'reading the text of'), for a refusal.
    """
    import pypdfium2 as pdfium

    check_header(data)
    pdf = open_pdf(data)
    chosen = parse_pages(pages, len(pdf.pages), default_all=default_all)
    with reading():
        check_page_costs(pdf, chosen, action=action)
        drawable = forms_are_drawable(pdf)
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise InvalidInput("the body is password-protected; remove the password first") from None
        try:
            document = pdfium.PdfDocument(repaired_copy(data))
        except pdfium.PdfiumError:
            raise damaged("the body", exc) from None
        fallbacks.record("pdfium -> qpdf repair")
    if len(document) > MAX_PAGES:
        raise TooLarge(f"the body has {len(document)} pages; at most {MAX_PAGES}")
    if len(document) != len(pdf.pages):  # pdfium read another page tree than qpdf: choose again
        chosen = parse_pages(pages, len(document), default_all=default_all)
    return document, drawable, chosen


@dataclass(frozen=True)
class PdfText:
    text: str
    pages: list[str] = field(default_factory=list)


def extract_text(data: bytes, *, pages: str | None = None) -> PdfText:
    """Vector text of the chosen pages (default all), one string per page; `text` joins them with
    a form feed (U+000C) between pages. No OCR."""
    document, _, chosen = _pdfium(data, pages, default_all=True, action="reading the text of")
    texts = []
    for number in chosen:
        deadline.check()
        try:
            textpage = document[number - 1].get_textpage()
            texts.append(textpage.get_text_bounded().replace("\r\n", "\n"))
        except (Exception, RecursionError) as exc:  # pdfium on a damaged page: pypdf reads its text
            texts.append(_page_text_by_pypdf(data, number, exc))
    return PdfText(text="\f".join(texts), pages=texts)


def _page_text_by_pypdf(data: bytes, number: int, failure: BaseException) -> str:
    from pypdf import PdfReader

    with reading(f"page {number}"):
        try:
            text = PdfReader(io.BytesIO(data), strict=False).pages[number - 1].extract_text()
        except (Exception, RecursionError):
            raise failure from None
    fallbacks.record("pdfium -> pypdf text")
    return text


class RenderFormat(StrEnum):
    """Image formats of rendered PDF pages."""

    PNG = "png"
    JPEG = "jpeg"
    WEBP = "webp"
    JXL = "jxl"


@dataclass(frozen=True)
class RenderedPage:
    page: int
    bytes: bytes
    width: int
    height: int
    quality_score: float | None = None  # with a target score: the SSIMULACRA2 score reached
    encoder_quality: float | None = None  # and the encoder quality chosen (see Chosen)


RENDER_QUALITY = 85  # JPEG and WebP pages without a target score


def render_pages(
    data: bytes,
    *,
    pages: str | None = None,
    fmt: RenderFormat = RenderFormat.PNG,
    dpi: int = 150,
    target_score: float | None = None,
) -> list[RenderedPage]:
    """Render pages (default: the first only) at `dpi` (72..300) with annotations and form fields.

    A 612 x 792 pt page at 72 dpi is 612 x 792 px.
    :param target_score: for jpeg, webp and jxl: SSIMULACRA2 30..95, the lowest quality reaching it per page.
    :raises TooLarge: a page over 50 megapixels at this dpi.
    :raises InvalidInput: a dpi out of bounds, or a target score out of bounds or for PNG.
    """
    if not 72 <= dpi <= 300:
        raise InvalidInput(f"dpi must be 72..300, not {dpi}")
    if target_score is not None:
        from fileapi.convert.image_io import ImageFormat
        from fileapi.convert.quality_options import check_target_score

        check_target_score(target_score, None, ImageFormat(fmt.value))
    document, draw_forms, chosen = _pdfium(data, pages, default_all=False, action="rendering")
    if draw_forms:
        document.init_forms()
    scale = dpi / 72 * (1 - 1e-9)  # pdfium rounds up: 792 pt at 150 dpi must give 1650 px, not 1651
    with reading():
        sizes = {number: document[number - 1].get_size() for number in chosen}
    total = sum(round(w * scale) * round(h * scale) for w, h in sizes.values())
    if total > MAX_RENDER_TOTAL_PIXELS:
        raise TooLarge(
            f"{len(chosen)} page(s) at {dpi} dpi would be {total:,} pixels, more than one answer can carry; "
            "ask for fewer pages or a lower dpi"
        )
    rendered: list[RenderedPage] = []
    carried = 0
    for number in chosen:
        deadline.check()
        width, height = sizes[number]
        pixels = round(width * scale) * round(height * scale)
        if pixels > MAX_RENDER_PIXELS:
            raise TooLarge(f"page {number} at {dpi} dpi would be {pixels:,} pixels; at most {MAX_RENDER_PIXELS:,}")
        with reading(f"page {number}"):
            image = document[number - 1].render(scale=scale, may_draw_forms=draw_forms).to_pil()
        encoded, score, quality = _encoded_page(image, fmt, target_score)
        carried += len(encoded)
        payload.check(
            f"{len(rendered) + 1} rendered page(s) as {fmt.value.upper()}",
            carried,
            hint="ask for fewer pages, a lower dpi or format=jpeg",
        )
        rendered.append(RenderedPage(number, encoded, image.width, image.height, score, quality))
    return rendered


def _encoded_page(
    image: Image.Image, fmt: RenderFormat, target_score: float | None
) -> tuple[bytes, float | None, float | None]:
    """(bytes, score, quality) of a rendered page as `fmt`; the last two when a target score chose them."""
    if fmt is RenderFormat.PNG:
        out = io.BytesIO()
        image.save(out, "PNG", compress_level=6)
        return out.getvalue(), None, None
    from fileapi.convert.image_io import ImageFormat, encode
    from fileapi.convert.quality_search import encode_to_score

    rgb = image.convert("RGB")
    if target_score is not None:
        chosen = encode_to_score(rgb, ImageFormat(fmt.value), target_score=target_score, icc_profile=None)
        return chosen.data, chosen.score, chosen.quality
    if fmt is RenderFormat.JXL:
        return encode(rgb, ImageFormat.JXL), None, None
    out = io.BytesIO()
    rgb.save(out, "JPEG" if fmt is RenderFormat.JPEG else "WEBP", quality=RENDER_QUALITY)
    return out.getvalue(), None, None


def merge_pdfs(documents: list[bytes]) -> bytes:
    """Concatenate PDFs in order; outlines, named destinations and form fields are carried over.

    :raises InvalidInput: no input, or an input that is not a readable PDF (naming its position).
    :raises TooLarge: more than MAX_MERGED_PAGES pages in all.
    """
    import pikepdf

    merged = pikepdf.Pdf.new()
    # The same file given twice is opened once, so its fonts and images are copied once.
    for position, document in opened_for_merge([(hashlib.sha256(data).digest(), data) for data in documents]):
        with reading(f"file {position}"):
            merged.add_pages_from(document)
    return save_pdf(merged)


def opened_for_merge(sources: Sequence[tuple[Hashable, Source]]) -> Iterator[tuple[int, pikepdf.Pdf]]:
    """Each of `sources` opened (once per identity) and checked, with its position from 1, in order.

    :raises InvalidInput: no source, or one that is not a readable PDF (naming its position).
    :raises TooLarge: more than MAX_MERGED_PAGES pages in all (checked before the source past it is given).
    """

    if not sources:
        raise InvalidInput("give at least one PDF to merge")
    total = 0
    opened: dict[Hashable, pikepdf.Pdf] = {}
    for position, (identity, source) in enumerate(sources, start=1):
        deadline.check()
        document = opened.get(identity) or opened.setdefault(identity, open_pdf(source, what=f"file {position}"))
        total += len(document.pages)
        if total > MAX_MERGED_PAGES:
            raise TooLarge(f"the merged document would have more than {MAX_MERGED_PAGES} pages")
        yield position, document


def split_pdf(data: bytes, *, ranges: str) -> list[bytes]:
    """One PDF per range ('1-3,4-4,7'), in the order given.

    :raises TooLarge: the ranges hold more than MAX_SPLIT_PAGES pages in all (checked before any is
        copied), or the parts so far would not fit the response (checked after each part: a part
        carries its own copy of every font and image its pages use).
    """
    parts: list[bytes] = []
    carried = 0
    for part, chosen in split_parts(open_pdf(data), ranges=ranges):
        parts.append(save_pdf(part))
        carried += len(parts[-1])
        payload.check(
            f"the first {len(parts):,} of {chosen:,} PDFs",
            carried,
            hint="ask for fewer ranges (each PDF carries its own copy of the fonts and images its pages use)",
        )
    return parts


def split_ranges(ranges: str, page_count: int) -> list[tuple[int, int]]:
    """The (first, last) pages of each range of `ranges` ('1-3,4-4,7') in a document of `page_count` pages.

    :raises InvalidInput: a range that is malformed, reversed or outside the document.
    :raises TooLarge: the ranges hold more than MAX_SPLIT_PAGES pages in all.
    """
    chosen = parse_ranges(ranges, page_count)
    pages = sum(last - first + 1 for first, last in chosen)
    if pages > MAX_SPLIT_PAGES:
        raise TooLarge(
            f"the {len(chosen):,} ranges hold {pages:,} pages in all; at most {MAX_SPLIT_PAGES:,} can be split "
            "out in one request: ask for fewer or shorter ranges"
        )
    return chosen


def split_parts(source: pikepdf.Pdf, *, ranges: str) -> Iterator[tuple[pikepdf.Pdf, int]]:
    """One new document per range of `source` ('1-3,4-4,7'), in the order given, each with the number of ranges.

    :raises InvalidInput: a range that is malformed, reversed or outside the document.
    :raises TooLarge: the ranges hold more than MAX_SPLIT_PAGES pages in all (checked before any is copied).
    """
    import pikepdf

    chosen = split_ranges(ranges, len(source.pages))
    for first, last in chosen:
        deadline.check()
        part = pikepdf.Pdf.new()
        with reading():
            part.add_pages_from(source, pages=range(first - 1, last))
        yield part, len(chosen)


def rotate_pdf(
    data: bytes, *, degrees: int | str, pages: str | None = None, keep_active_content: bool = False
) -> bytes:
    """Rotate the chosen pages (default all) clockwise by 90, 180 or 270, added to their /Rotate.

    :param keep_active_content: keep JavaScript, automatic and launch actions and embedded files (default:
        removed, see fileapi.convert.pdf_active).
    """
    return save_pdf(rotated(data, degrees=degrees, pages=pages, keep_active_content=keep_active_content))


def rotated(
    source: Source, *, degrees: int | str, pages: str | None = None, keep_active_content: bool = False
) -> pikepdf.Pdf:
    """The document of `source` (bytes or a file) with its chosen pages rotated, as `rotate_pdf` describes.

    :raises InvalidInput: another angle than 90, 180 or 270, or pages outside the document.
    """
    from fileapi.convert.pdf_active import remove_active_content

    if str(degrees) not in ("90", "180", "270"):  # the query's text ("90") or a number
        raise InvalidInput(f"degrees must be 90, 180 or 270, not {degrees}")
    pdf = open_pdf(source)
    for number in parse_pages(pages, len(pdf.pages)):
        deadline.check()
        with reading(f"page {number}"):
            pdf.pages[number - 1].rotate(int(degrees), relative=True)
    if not keep_active_content:
        remove_active_content(pdf)
    return pdf
