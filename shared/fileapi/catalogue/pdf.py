"""The PDF conversions (the Pdf function)."""

from __future__ import annotations

import importlib
import os
from functools import partial
from typing import Any

from fileapi.catalogue.converters import Named
from fileapi.catalogue.declaration import (
    IMAGE,
    PDF,
    Conversion,
    Reads,
    Takes,
    described,
    gives_file,
    gives_json,
    gives_json_files,
)
from fileapi.catalogue.outcome import Outcome, OutFile, file_at, one_file
from fileapi.convert.pdf import MAX_SPLIT_PAGES, extract_text, merge_pdfs, pdf_info, render_pages, rotate_pdf, split_pdf
from fileapi.convert.pdf_edit import DEFAULT_OPACITY, DEFAULT_ROTATION, compress_pdf, protect_pdf, watermark_pdf
from fileapi.convert.pdf_forms import fill_form, flatten_form
from fileapi.models.pdf import (
    CompressOptions,
    ExtractTextOptions,
    FillFormOptions,
    FlattenOptions,
    FromImagesOptions,
    MetadataOptions,
    PagesOptions,
    PdfCompressResult,
    PdfExtractTextResult,
    PdfFillFormRequest,
    PdfFromImagesForm,
    PdfInfoResult,
    PdfMergeForm,
    PdfOcrOptions,
    PdfOcrTextResult,
    PdfRenderPageResult,
    PdfRotateOptions,
    PdfSplitResult,
    ProtectOptions,
    RedactOptions,
    RenderOptions,
    SplitOptions,
    UnlockOptions,
    WatermarkOptions,
)

FAMILY = "pdf"
TAGS = ("PDF",)
ONE_PDF = Takes(Reads.FILE, PDF, doc="A PDF document (any Content-Type, e.g. application/pdf).")
A_PDF = gives_file((PDF,), "The PDF")
RESULT = "result.pdf"
# What the family's conversion workers import before their first job.
WORKER_MODULES = (
    "fileapi.convert.pdf",
    "fileapi.convert.pdf_edit",
    "fileapi.convert.pdf_forms",
    "pypdfium2",
    "pikepdf",
    "pypdf",
)


def _one_pdf(folder: str, name: str) -> tuple[str, Outcome]:
    path = os.path.join(folder, name)
    return path, Outcome((OutFile(PDF, RESULT, path=path),))


def split_files(inputs: list[str], folder: str, *, ranges: str) -> Outcome:
    """Split over files: one PDF per range, each written into `folder` (fileapi.convert.pdf_files)."""
    from fileapi.convert.pdf_files import split_pdf_file

    parts = split_pdf_file(inputs[0], folder, ranges=ranges)
    return Outcome(
        tuple(OutFile(PDF, f"pdfs-{index + 1}.pdf", ("pdfs", index), path=part) for index, part in enumerate(parts))
    )


def merge_files(inputs: list[str], folder: str) -> Outcome:
    """Merge over files, page by page on disk."""
    from fileapi.convert.pdf_files import merge_pdf_files

    path, outcome = _one_pdf(folder, "merged.pdf")
    merge_pdf_files(inputs, path)
    return outcome


def pdf_over_files(converter: str, name: str, inputs: list[str], folder: str, **options: Any) -> Outcome:
    """A converter over files that writes one PDF (`module:function(source, out, **options)`), its PDF named
    `name` in `folder`; bound with functools.partial in a declaration (a worker unpickles it)."""
    module, _, function = converter.partition(":")
    path, outcome = _one_pdf(folder, name)
    getattr(importlib.import_module(module), function)(inputs[0], path, **options)
    return outcome


def compress_files(inputs: list[str], folder: str, **options: Any) -> Outcome:
    """Compress over files: the PDF at `bytes`, the sizes as details."""
    from fileapi.convert.pdf_files import compress_pdf_file

    path = os.path.join(folder, "compressed.pdf")
    sizes = compress_pdf_file(inputs[0], path, **options)
    return Outcome((OutFile(PDF, "bytes.pdf", ("bytes",), path=path),), dict(sizes))


def from_images_files(inputs: list[str], folder: str, **options: Any) -> Outcome:
    """Images to one PDF over files: each image read from disk as it is written."""
    from fileapi.convert.pdf_from_images import images_to_pdf_file

    path, outcome = _one_pdf(folder, "images.pdf")
    images_to_pdf_file(inputs, path, **options)
    return outcome


REDACTIONS = "X-Redactions"
REDACTIONS_HEADER = {
    REDACTIONS: {
        "description": "The number of areas redacted: those given, and one per line of each match.",
        "schema": {"type": "integer", "minimum": 0},
    }
}


def redact_outcome(result: Any) -> Outcome:
    """The redacted PDF, with how many areas were redacted in X-Redactions."""
    return one_file(result.data, PDF, {REDACTIONS: str(result.redactions)})


def redact_files(inputs: list[str], folder: str, **options: Any) -> Outcome:
    """Redact over files: the count in X-Redactions as the synchronous answer gives it."""
    from fileapi.convert.pdf_redact import redact_pdf_file

    path = os.path.join(folder, "redacted.pdf")
    count = redact_pdf_file(inputs[0], path, **options)
    return Outcome((OutFile(PDF, RESULT, path=path),), headers={REDACTIONS: str(count)})


def ocr_outcome(result: Any) -> Outcome:
    """The searchable PDF, or the recognised text as JSON {text, pages}."""
    if isinstance(result, bytes):
        return one_file(result, PDF)
    return one_file(PdfOcrTextResult.model_validate(result).model_dump_json(by_alias=True).encode(), "application/json")


def split_outcome(parts: list[bytes]) -> Outcome:
    """Split's PDFs, each at `pdfs[i]`."""
    return Outcome(tuple(file_at(("pdfs", index), part, PDF) for index, part in enumerate(parts)), {})


def render_outcome(pages: list[Any]) -> Outcome:
    """Rendered pages: each image at `pages[i].bytes`, its page number and size as details."""
    files = []
    details = []
    for index, page in enumerate(pages):
        files.append(file_at(("pages", index, "bytes"), page.bytes, _image_type(page.bytes)))
        details.append({"page": page.page, "width": page.width, "height": page.height})
        if page.quality_score is not None:  # with targetScore: what it chose, per page
            details[-1] |= {"qualityScore": page.quality_score, "encoderQuality": page.encoder_quality}
    return Outcome(tuple(files), {"pages": details})


def compress_outcome(result: Any) -> Outcome:
    """The compressed PDF at `bytes`, its sizes as details."""
    sizes = {"originalSize": result.originalSize, "compressedSize": result.compressedSize}
    return Outcome((file_at(("bytes",), result.data, PDF),), {**sizes, "savedPercent": result.savedPercent})


def _image_type(data: bytes) -> str:
    from fileapi.convert.jxl import is_jxl

    if data.startswith(b"\x89PNG"):
        return "image/png"
    if data.startswith(b"\xff\xd8"):
        return "image/jpeg"
    if is_jxl(data):
        return "image/jxl"
    return "image/webp"


CONVERSIONS = (
    Conversion(
        path="/v1/pdf/info",
        family=FAMILY,
        summary="Page count, page sizes, metadata and encryption of a PDF",
        description="pageSizes are in PDF points as displayed (width and height swapped for pages with /Rotate 90 "
        "or 270); metadata holds the info dictionary's title, author, subject, keywords, producer and creator when "
        "present. A PDF encrypted with an empty user password answers (encrypted: true); one that needs a password "
        "is 400 invalid_input. At most 2,000 pages (413).",
        takes=ONE_PDF,
        gives=gives_json(PdfInfoResult),
        convert=pdf_info,
        tags=TAGS,
    ),
    Conversion(
        path="/v1/pdf/extract-text",
        family=FAMILY,
        summary="Extract the text of a PDF",
        description="Vector text only (no OCR), with pdfium. pages: '1-3', '1,3,5' or 'all' (default all). pages[] "
        "holds one string per chosen page; text joins them with a form feed (U+000C) between pages.",
        takes=ONE_PDF,
        options=ExtractTextOptions,
        gives=gives_json(PdfExtractTextResult),
        convert=extract_text,
        tags=TAGS,
    ),
    Conversion(
        path="/v1/pdf/render-page",
        family=FAMILY,
        summary="Render PDF pages as images",
        description="pages (default: the first page only), format png (default), jpeg, webp or jxl, dpi 72-300 "
        "(default 150): a 612 x 792 pt page at 72 dpi is 612 x 792 px. jpeg and webp are written at quality 85, jxl at "
        "90; targetScore (SSIMULACRA2, not for png) chooses the lowest quality reaching it per page, and each page "
        "says what it chose (qualityScore, encoderQuality). Annotations and form fields are drawn. A page over 50 "
        "megapixels, more than 200 megapixels in one call, or a result over the response limit is 413 (ask for "
        "fewer pages or a lower dpi).",
        takes=ONE_PDF,
        options=RenderOptions,
        gives=gives_json_files(PdfRenderPageResult, IMAGE),
        convert=render_pages,
        unpack=render_outcome,
        tags=TAGS,
        example={"dpi": "72"},
    ),
    Conversion(
        path="/v1/pdf/merge",
        family=FAMILY,
        summary="Merge PDFs",
        description="multipart/form-data with one or more parts named `files` (PDF files). Also accepted, and left "
        "out of the document because code generators mishandle a body offered two ways: JSON {files: [base64 "
        "PDFs]}. Order is kept; outlines, named destinations and form fields survive. An input that is not a PDF is "
        "400 naming its position. At most 5,000 pages in all.",
        takes=Takes(Reads.FILES, PDF, most=100, model=PdfMergeForm),
        gives=A_PDF,
        convert=merge_pdfs,
        convert_files=merge_files,
        tags=TAGS,
    ),
    Conversion(
        path="/v1/pdf/split",
        family=FAMILY,
        summary="Split a PDF by page ranges",
        description="ranges (required): comma-separated ranges such as '1-3,4-4,7' (a lone page allowed, spaces "
        "tolerated); one PDF per range, in the order given. A range outside the document or reversed is 400; "
        f"ranges holding more than {MAX_SPLIT_PAGES:,} pages in all are 413 before any is copied, and parts that "
        "would not fit the response are 413 as soon as they pass it (each PDF carries its own copy of the fonts and "
        "images its pages use).",
        takes=ONE_PDF,
        options=SplitOptions,
        gives=gives_json_files(PdfSplitResult, PDF),
        convert=split_pdf,
        unpack=split_outcome,
        convert_files=split_files,
        tags=TAGS,
        example={"ranges": "1"},
    ),
    Conversion(
        path="/v1/pdf/rotate",
        family=FAMILY,
        summary="Rotate PDF pages clockwise",
        description="degrees 90, 180 or 270 clockwise, added to each page's existing /Rotate; pages '1,3,5', ranges "
        "'2-4' or 'all' (default).",
        takes=ONE_PDF,
        options=PdfRotateOptions,
        gives=A_PDF,
        convert=rotate_pdf,
        convert_files=partial(pdf_over_files, "fileapi.convert.pdf_files:rotate_pdf_file", "rotated.pdf"),
        tags=TAGS,
        example={"degrees": "90"},
    ),
    Conversion(
        path="/v1/pdf/watermark",
        family=FAMILY,
        summary="Watermark PDF pages with text",
        description="text (required, Windows-1252 characters: the standard PDF fonts cover no more; other text is "
        "400) drawn centred on each chosen page (default all) as real text in Helvetica, grey; opacity 0-1 (default "
        f"{DEFAULT_OPACITY}); rotation in degrees counter-clockwise (default {DEFAULT_ROTATION:g}); fontSize in "
        "points (default: the text spans about 60% of the page's diagonal).",
        takes=ONE_PDF,
        options=WatermarkOptions,
        gives=A_PDF,
        convert=watermark_pdf,
        convert_files=partial(pdf_over_files, "fileapi.convert.pdf_edit:watermark_pdf_file", "watermarked.pdf"),
        tags=TAGS,
        example={"text": "DRAFT"},
    ),
    Conversion(
        path="/v1/pdf/fill-form",
        family=FAMILY,
        summary="Fill a PDF form",
        description="JSON {pdf: base64, fields: {name: value}, flatten?: boolean, keepActiveContent?: boolean}. Also "
        "accepted, and left out of the document because code generators mishandle a body offered two ways: "
        "multipart/form-data with file (the PDF), fields (a JSON object as text), flatten and keepActiveContent "
        "('true'/'false'). JavaScript, automatic and launch actions and embedded files are removed unless "
        "keepActiveContent. Text fields take text; check boxes true/false or their export value; radio groups an "
        "export value; choice fields one of their options (a list for multi-select; the export value where the "
        "options are [export, display] pairs). A field that does not exist is 400 naming it. Appearance streams are "
        "generated. With flatten=true the values are baked into the page content and the widgets and the AcroForm "
        "are removed. A form whose fields the form library cannot read (a radio button or check box without an "
        "appearance, for one) is 422 unprocessable_input: /v1/pdf/flatten still flattens it.",
        takes=Takes(Reads.FORM_FILL, PDF, model=PdfFillFormRequest),
        options=FillFormOptions,
        gives=A_PDF,
        convert=fill_form,
        tags=TAGS,
        example={"fields": {"name": "Ada"}, "flatten": True},
    ),
    Conversion(
        path="/v1/pdf/flatten",
        family=FAMILY,
        summary="Flatten a PDF form",
        description="Bakes the values the form holds into the page content and removes the widgets and the AcroForm, "
        "so the values can no longer be edited. A PDF without form fields is returned unchanged. A form the form "
        "library (pypdf) cannot read is flattened by qpdf, its appearances generated first where the form asks for "
        "them (NeedAppearances).",
        takes=ONE_PDF,
        options=FlattenOptions,
        gives=A_PDF,
        convert=flatten_form,
        tags=TAGS,
    ),
    Conversion(
        path="/v1/pdf/compress",
        family=FAMILY,
        summary="Compress a PDF",
        description="Lossless structure compression (object streams, recompressed streams, unreferenced resources "
        "dropped); stripMetadata (default false) removes the info dictionary and XMP metadata; imageMaxSide "
        "(16-10000, off by default) downsamples images whose longer side is larger, re-encoding them as JPEG quality "
        "85. Never returns a larger file: then the input comes back with savedPercent 0. Sizes are integers "
        "(bytes); savedPercent is a number with one decimal.",
        takes=ONE_PDF,
        options=CompressOptions,
        gives=gives_json_files(PdfCompressResult, PDF),
        convert=compress_pdf,
        unpack=compress_outcome,
        convert_files=compress_files,
        tags=TAGS,
        example={"imageMaxSide": "200"},
    ),
    Conversion(
        path="/v1/pdf/protect",
        family=FAMILY,
        summary="Password-protect a PDF (AES-256)",
        description="userPassword (required, 1-128 characters) is needed to open the document. ownerPassword "
        "(optional) grants full rights; without it a random owner password is used, so the restrictions hold. "
        "Permissions: allowPrinting (default true), allowCopying (default true), allowModifying (default false).",
        takes=ONE_PDF,
        options=ProtectOptions,
        gives=A_PDF,
        convert=protect_pdf,
        tags=TAGS,
        example={"userPassword": "secret"},
    ),
    Conversion(
        path="/v1/pdf/unlock",
        family=FAMILY,
        summary="Remove a PDF's password and restrictions",
        description=described(UnlockOptions),
        takes=ONE_PDF,
        options=UnlockOptions,
        gives=A_PDF,
        convert=Named("fileapi.convert.pdf_unlock", "unlock_pdf"),
        convert_files=partial(pdf_over_files, "fileapi.convert.pdf_unlock:unlock_pdf_file", "unlocked.pdf"),
        tags=TAGS,
        example={"password": "secret"},
    ),
    Conversion(
        path="/v1/pdf/metadata",
        family=FAMILY,
        summary="Set a PDF's title, author, subject, keywords, creator and producer",
        description=described(MetadataOptions),
        takes=ONE_PDF,
        options=MetadataOptions,
        gives=A_PDF,
        convert=Named("fileapi.convert.pdf_metadata", "set_pdf_metadata"),
        convert_files=partial(pdf_over_files, "fileapi.convert.pdf_metadata:set_pdf_metadata_file", "metadata.pdf"),
        tags=TAGS,
        example={"title": "Annual report", "author": "Ada Lovelace"},
    ),
    Conversion(
        path="/v1/pdf/pages",
        family=FAMILY,
        summary="Reorder, delete, duplicate and insert pages",
        description=described(PagesOptions),
        takes=ONE_PDF,
        options=PagesOptions,
        gives=A_PDF,
        convert=Named("fileapi.convert.pdf_pages", "arrange_pages"),
        convert_files=partial(pdf_over_files, "fileapi.convert.pdf_pages:arrange_pages_file", "pages.pdf"),
        tags=TAGS,
        example={"order": "1,blank,1"},
    ),
    Conversion(
        path="/v1/pdf/from-images",
        family=FAMILY,
        summary="Images to one PDF, a page each, losslessly",
        description=described(FromImagesOptions)
        + " The images as multipart parts named `files` (repeated, in order), as pdf/merge takes PDFs, or as uploads "
        "(`?upload=` repeated) for large sets.",
        takes=Takes(Reads.FILES, IMAGE, most=1000, model=PdfFromImagesForm),
        options=FromImagesOptions,
        gives=A_PDF,
        convert=Named("fileapi.convert.pdf_from_images", "images_to_pdf"),
        convert_files=from_images_files,
        tags=TAGS,
    ),
    Conversion(
        path="/v1/pdf/redact",
        family=FAMILY,
        summary="Redact text, patterns and areas so they are gone",
        description=described(RedactOptions),
        takes=ONE_PDF,
        options=RedactOptions,
        gives=gives_file((PDF,), "The redacted PDF", headers=REDACTIONS_HEADER),
        convert=Named("fileapi.convert.pdf_redact", "redact_pdf"),
        unpack=redact_outcome,
        convert_files=redact_files,
        tags=TAGS,
        example={"text": "Confidential"},
    ),
    Conversion(
        path="/v1/pdf/ocr",
        family=FAMILY,
        summary="Make a scanned PDF searchable, or read its text (OCR)",
        description="Makes a scanned PDF searchable: each page without text is rendered at 300 dpi, recognised with "
        "Tesseract and given an invisible text layer over its images, which stay byte for byte as they were. With "
        "output=text the answer is JSON {text, pages} (PdfOcrTextResult) instead. Pages that already have text are "
        "left alone (their own text in output=text) unless force=true. languages: '+'-joined Tesseract codes of "
        "the installed languages (eng). At most 500 pages to recognise and 40 megapixels a page at 300 dpi, both "
        "checked before any recognition (413). Pages are read as they are shown (their /Rotate applied): upright "
        "text, and lines that run down the page (a page shown a quarter turned clockwise); no orientation is "
        "detected, so text shown upside down or running up the page is not read: turn the page with "
        "/v1/pdf/rotate first.",
        takes=ONE_PDF,
        options=PdfOcrOptions,
        gives=gives_file((PDF, "application/json"), "The searchable PDF, or (output=text) JSON {text, pages}"),
        convert=Named("fileapi.convert.ocr_pdf", "pdf_ocr"),
        unpack=ocr_outcome,
        tags=TAGS,
    ),
)
