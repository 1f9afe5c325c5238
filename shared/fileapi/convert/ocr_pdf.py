"""Scanned PDFs made searchable: each page without text is rendered (pdfium), recognised (Tesseract) and
given an invisible text layer (`ocr_text_layer`) as a form XObject drawn after its content (pikepdf).

The page's own content streams and images stay byte for byte as they were: the layer is new objects and
two new content streams around the old ones (`q` before, `Q q /OCRn Do Q` after), and the document is
written without decoding, recompressing or compressing any existing stream.
"""

from __future__ import annotations

import ctypes
import io
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fileapi.convert import deadline
from fileapi.convert.ocr_engine import check_ocr_pixels, parse_languages, recognise
from fileapi.convert.ocr_options import DEFAULT_LANGUAGES, OcrOutput
from fileapi.convert.ocr_text_layer import GLYPH_WIDTH, PixelToPage, TextLayer, text_layer, to_unicode_cmap
from fileapi.convert.pdf import PdfText, _pdfium
from fileapi.convert.pdf_errors import reading
from fileapi.convert.pdf_io import open_pdf
from fileapi.errors import InvalidInput, TooLarge

if TYPE_CHECKING:
    import pikepdf

OCR_DPI = 300  # Tesseract's best for body text: the bench's pages read with 13.8% CER at 300 dpi, 14.7% at 150
# Pages recognised in one request: about 1.1 s of CPU each at 300 dpi (bench/ocr.py); a synchronous request
# stops earlier at its time budget, an operation may run them all.
MAX_OCR_PAGES = 500


@dataclass(frozen=True)
class _Plan:
    """The pages to recognise (1-based) and each one's size in pixels at OCR_DPI."""

    page_count: int
    sizes: dict[int, tuple[int, int]]
    texts: dict[int, str]


def pdf_ocr(
    data: bytes, *, output: OcrOutput = OcrOutput.PDF, languages: str = DEFAULT_LANGUAGES, force: bool = False
) -> bytes | PdfText:
    """Recognise the text of a scanned PDF's pages.

    :param output: `pdf`, the PDF with an invisible text layer over each recognised page; `text`, the text
        of every page (recognised, or the page's own text when it was left alone), pages joined by form feeds.
    :param languages: Tesseract language codes joined by '+' ('eng', 'eng+deu'); only installed ones.
    :param force: recognise pages that already have text too (by default they are left alone).
    :returns: the PDF's bytes (the input unchanged when no page needed recognition), or PdfText.
    :raises InvalidInput: bad languages, or a damaged or password-protected PDF.
    :raises TooLarge: more than 500 pages to recognise, a page over 40 megapixels at 300 dpi (both checked
        before any recognition), or the conversion's time budget spent.
    """
    parsed = parse_languages(languages)
    document, _, _ = _pdfium(data, None, default_all=True, action="recognising the text of")
    plan = _plan(document, force=force)
    recognised: dict[int, tuple[str, TextLayer]] = {}
    for number in plan.sizes:
        deadline.check()
        page = document[number - 1]
        with reading(f"page {number}"):
            image = page.render(scale=OCR_DPI / 72, grayscale=True, draw_annots=False).to_pil()
        check_ocr_pixels(image.size, what=f"page {number} at {OCR_DPI} dpi")
        result = recognise(image, languages=parsed, dpi=OCR_DPI)
        recognised[number] = (result.text, text_layer(result.words, _pixel_to_page(page, image.size)))
    if output is OcrOutput.TEXT:
        pages = [recognised[n][0] if n in recognised else plan.texts[n] for n in range(1, plan.page_count + 1)]
        return PdfText(text="\f".join(pages), pages=pages)
    if not recognised:
        return data
    return _with_layers(data, {number: layer for number, (_, layer) in recognised.items()}, plan.page_count)


def _plan(document: Any, *, force: bool) -> _Plan:
    """Which pages to recognise, with every bound checked before any is."""
    count = len(document)
    texts: dict[int, str] = {}
    sizes: dict[int, tuple[int, int]] = {}
    scale = OCR_DPI / 72
    for number in range(1, count + 1):
        with reading(f"page {number}"):
            page = document[number - 1]
            texts[number] = page.get_textpage().get_text_bounded().replace("\r\n", "\n")
            width, height = page.get_size()
        if force or not texts[number].strip():
            sizes[number] = (round(width * scale), round(height * scale))
            check_ocr_pixels(sizes[number], what=f"page {number} at {OCR_DPI} dpi")
    if len(sizes) > MAX_OCR_PAGES:
        raise TooLarge(f"{len(sizes)} pages to recognise; at most {MAX_OCR_PAGES} in one request")
    return _Plan(count, sizes, texts)


def _pixel_to_page(page: Any, size: tuple[int, int]) -> PixelToPage:
    """pdfium's own inverse of its rendering (crop box, /Rotate) for an image of `size` pixels."""
    import pypdfium2.raw as pdfium_c

    width, height = size

    def point(column: int, row: int) -> tuple[float, float]:
        x, y = ctypes.c_double(), ctypes.c_double()
        pdfium_c.FPDF_DeviceToPage(page.raw, 0, 0, width, height, 0, column, row, ctypes.byref(x), ctypes.byref(y))
        return x.value, y.value

    origin, right, below = point(0, 0), point(width, 0), point(0, height)
    return PixelToPage(
        origin=origin,
        per_column=((right[0] - origin[0]) / width, (right[1] - origin[1]) / width),
        per_row=((below[0] - origin[0]) / height, (below[1] - origin[1]) / height),
    )


def _with_layers(data: bytes, layers: dict[int, TextLayer], page_count: int) -> bytes:
    import pikepdf

    pdf = open_pdf(data)
    if len(pdf.pages) != page_count:
        raise InvalidInput("the body's page tree is damaged: its readers disagree on the number of pages")
    glyph = pdf.make_stream(f"{GLYPH_WIDTH} 0 d0".encode())
    with reading():
        for number, layer in layers.items():
            page = pdf.pages[number - 1]
            fonts = pikepdf.Dictionary(
                {f"/F{index}": _type3_font(pdf, glyph, characters) for index, characters in enumerate(layer.fonts)}
            )
            form = _compressed(
                pdf,
                layer.content,
                Type=pikepdf.Name.XObject,
                Subtype=pikepdf.Name.Form,
                BBox=page.mediabox,
                Resources=pikepdf.Dictionary(Font=fonts),
            )
            name = page.add_resource(form, pikepdf.Name.XObject, prefix="OCR")
            page.contents_add(pdf.make_stream(b"q\n"), prepend=True)
            page.contents_add(pdf.make_stream(b"\nQ\nq " + str(name).encode() + b" Do Q\n"))
        out = io.BytesIO()
        # no stream decoded, recompressed or compressed: the pages' images stay byte for byte
        pdf.save(
            out,
            compress_streams=False,
            stream_decode_level=pikepdf.StreamDecodeLevel.none,
            object_stream_mode=pikepdf.ObjectStreamMode.generate,
        )
    return out.getvalue()


def _type3_font(pdf: pikepdf.Pdf, glyph: pikepdf.Object, characters: str) -> pikepdf.Object:
    """A Type 3 font whose codes 0..len-1 all draw the empty glyph and read as `characters`."""
    import pikepdf

    count = len(characters)
    return pdf.make_indirect(
        pikepdf.Dictionary(
            Type=pikepdf.Name.Font,
            Subtype=pikepdf.Name.Type3,
            FontBBox=[0, 0, GLYPH_WIDTH, 1000],
            FontMatrix=[0.001, 0, 0, 0.001, 0, 0],
            CharProcs=pikepdf.Dictionary(g=glyph),
            Encoding=pikepdf.Dictionary(
                Type=pikepdf.Name.Encoding, Differences=pikepdf.Array([0, *[pikepdf.Name.g] * count])
            ),
            FirstChar=0,
            LastChar=count - 1,
            Widths=[GLYPH_WIDTH] * count,
            Resources=pikepdf.Dictionary(),
            ToUnicode=_compressed(pdf, to_unicode_cmap(characters)),
        )
    )


def _compressed(pdf: pikepdf.Pdf, content: bytes, **keys: Any) -> pikepdf.Object:
    import pikepdf

    return pdf.make_stream(zlib.compress(content, 6), Filter=pikepdf.Name.FlateDecode, **keys)
