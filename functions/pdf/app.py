"""Pdf function: /v1/pdf/* (all 11 endpoints)."""

from __future__ import annotations

import base64
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query, Request
from starlette.responses import Response

from fileapi.convert.pdf import (
    extract_text,
    merge_pdfs,
    pdf_info,
    render_pages,
    rotate_pdf,
    split_pdf,
)
from fileapi.convert.pdf_edit import DEFAULT_OPACITY, DEFAULT_ROTATION, compress_pdf, protect_pdf, watermark_pdf
from fileapi.convert.pdf_forms import fill_form, flatten_form
from fileapi.models.pdf import (
    KEEP_ACTIVE_CONTENT_DESCRIPTION,
    CompressOptions,
    FlattenOptions,
    PdfCompressResult,
    PdfExtractTextResult,
    PdfFillFormRequest,
    PdfInfoResult,
    PdfMergeForm,
    PdfRenderPageResult,
    PdfSplitResult,
    ProtectOptions,
    RenderedPage,
    RenderOptions,
    WatermarkOptions,
)
from fileapi.web.app import create_app, lambda_handler
from fileapi.web.conversions import isolated
from fileapi.web.docs import ISOLATED_STATUSES, model_body, raw_body
from fileapi.web.io import RawBody
from fileapi.web.metering import MeteredRoute, metered
from fileapi.web.pdf_bodies import form_fill, merge_documents
from fileapi.web.routes import Routes, answers_bytes, json_response

router = APIRouter(route_class=MeteredRoute, dependencies=[Depends(metered)], tags=["PDF"])
pdf = Routes(
    router,
    body=raw_body("A PDF document (any Content-Type, e.g. application/pdf)."),
    answer=answers_bytes(("application/pdf",), "The PDF"),
    statuses=ISOLATED_STATUSES,
)
Pages = Annotated[str | None, Query(max_length=1000, description="Pages such as '1,3,5', '2-4' or 'all'.")]
KeepActive = Annotated[bool, Query(description=KEEP_ACTIVE_CONTENT_DESCRIPTION)]


def _pdf(data: bytes) -> Response:
    return Response(data, media_type="application/pdf")


@pdf.post("/v1/pdf/info", "Page count, page sizes, metadata and encryption of a PDF", PdfInfoResult)
async def info(body: RawBody) -> Response:
    """pageSizes are in PDF points as displayed (width and height swapped for pages with /Rotate 90 or 270);
    metadata holds the info dictionary's title, author, subject, keywords, producer and creator when present.
    A PDF encrypted with an empty user password answers (encrypted: true); one that needs a password is 400
    invalid_input. At most 2,000 pages (413)."""
    return json_response(PdfInfoResult.model_validate(await isolated(pdf_info, body)))


@pdf.post("/v1/pdf/extract-text", "Extract the text of a PDF", PdfExtractTextResult)
async def text(body: RawBody, pages: Pages = None) -> Response:
    """Vector text only (no OCR), with pdfium. pages: '1-3', '1,3,5' or 'all' (default all). pages[] holds one
    string per chosen page; text joins them with a form feed (U+000C) between pages."""
    return json_response(PdfExtractTextResult.model_validate(await isolated(extract_text, body, pages=pages)))


@pdf.post("/v1/pdf/render-page", "Render PDF pages as images", PdfRenderPageResult)
async def render(body: RawBody, options: Annotated[RenderOptions, Query()]) -> Response:
    """pages (default: the first page only), format png (default), jpeg or webp, dpi 72-300 (default 150): a
    612 x 792 pt page at 72 dpi is 612 x 792 px. Annotations and form fields are drawn. A page over 50
    megapixels, more than 200 megapixels in one call, or a result over the response limit is 413 (ask for
    fewer pages or a lower dpi)."""
    rendered = await isolated(render_pages, body, **options.model_dump())
    return json_response(PdfRenderPageResult(pages=[RenderedPage.model_validate(page) for page in rendered]))


@pdf.post("/v1/pdf/merge", "Merge PDFs", body=model_body("multipart/form-data", PdfMergeForm))
async def merge(request: Request) -> Response:
    """multipart/form-data with one or more parts named `files` (PDF files). Also accepted, and left out of the
    document because code generators mishandle a body offered two ways: JSON {files: [base64 PDFs]}. Order is
    kept; outlines, named destinations and form fields survive. An input that is not a PDF is 400 naming its
    position. At most 5,000 pages in all."""
    return _pdf(await isolated(merge_pdfs, await merge_documents(request)))


@pdf.post("/v1/pdf/split", "Split a PDF by page ranges", PdfSplitResult)
async def split(
    body: RawBody, ranges: Annotated[str, Query(max_length=1000, description="e.g. '1-3,4-4,7'.")]
) -> Response:
    """ranges (required): comma-separated ranges such as '1-3,4-4,7' (a lone page allowed, spaces tolerated);
    one PDF per range, in the order given. A range outside the document or reversed is 400."""
    parts = await isolated(split_pdf, body, ranges=ranges)
    return json_response(PdfSplitResult(pdfs=[base64.b64encode(part).decode("ascii") for part in parts]))


@pdf.post("/v1/pdf/rotate", "Rotate PDF pages clockwise")
async def rotate(
    body: RawBody,
    degrees: Annotated[Literal["90", "180", "270"], Query(description="Clockwise rotation in degrees.")],
    pages: Pages = None,
    keepActiveContent: KeepActive = False,
) -> Response:
    """degrees 90, 180 or 270 clockwise, added to each page's existing /Rotate; pages '1,3,5', ranges '2-4' or
    'all' (default)."""
    keep = keepActiveContent
    return _pdf(await isolated(rotate_pdf, body, degrees=int(degrees), pages=pages, keep_active_content=keep))


@pdf.post(
    "/v1/pdf/watermark",
    "Watermark PDF pages with text",
    description=(
        "text (required, Windows-1252 characters: the standard PDF fonts cover no more; other text is 400) drawn "
        f"centred on each chosen page (default all) as real text in Helvetica, grey; opacity 0-1 (default "
        f"{DEFAULT_OPACITY}); rotation in degrees counter-clockwise (default {DEFAULT_ROTATION:g}); fontSize in "
        "points (default: the text spans about 60% of the page's diagonal)."
    ),
)
async def watermark(body: RawBody, options: Annotated[WatermarkOptions, Query()]) -> Response:
    return _pdf(await isolated(watermark_pdf, body, **options.model_dump()))


@pdf.post("/v1/pdf/fill-form", "Fill a PDF form", body=model_body("application/json", PdfFillFormRequest))
async def fill(request: Request) -> Response:
    """JSON {pdf: base64, fields: {name: value}, flatten?: boolean, keepActiveContent?: boolean}. Also accepted,
    and left out of the document because code generators mishandle a body offered two ways: multipart/form-data
    with file (the PDF), fields (a JSON object as text), flatten and keepActiveContent ('true'/'false'). JavaScript,
    automatic and launch actions and embedded files are removed unless keepActiveContent. Text fields take text;
    check boxes true/false or their export value; radio groups an export value; choice fields one of their options
    (a list for multi-select). A field that does not exist is 400 naming it. Appearance streams are generated. With
    flatten=true the values are baked into the page content and the widgets and the AcroForm are removed."""
    given = await form_fill(request)
    return _pdf(
        await isolated(
            fill_form,
            given.document,
            fields=given.fields,
            flatten=given.flatten,
            keep_active_content=given.keep_active_content,
        )
    )


@pdf.post("/v1/pdf/flatten", "Flatten a PDF form")
async def flatten(body: RawBody, options: Annotated[FlattenOptions, Query()]) -> Response:
    """Bakes the values the form holds into the page content and removes the widgets and the AcroForm, so the
    values can no longer be edited. A PDF without form fields is returned unchanged."""
    return _pdf(await isolated(flatten_form, body, **options.model_dump()))


@pdf.post("/v1/pdf/compress", "Compress a PDF", PdfCompressResult)
async def compress(body: RawBody, options: Annotated[CompressOptions, Query()]) -> Response:
    """Lossless structure compression (object streams, recompressed streams, unreferenced resources dropped);
    stripMetadata (default false) removes the info dictionary and XMP metadata; imageMaxSide (16-10000, off by
    default) downsamples images whose longer side is larger, re-encoding them as JPEG quality 85. Never returns
    a larger file: then the input comes back with savedPercent 0. Sizes are integers (bytes); savedPercent is a
    number with one decimal."""
    result = await isolated(compress_pdf, body, **options.model_dump())
    document = base64.b64encode(result.data).decode("ascii")
    return json_response(PdfCompressResult.model_validate({**vars(result), "bytes": document}))


@pdf.post("/v1/pdf/protect", "Password-protect a PDF (AES-256)")
async def protect(body: RawBody, options: Annotated[ProtectOptions, Query()]) -> Response:
    """userPassword (required, 1-128 characters) is needed to open the document. ownerPassword (optional)
    grants full rights; without it a random owner password is used, so the restrictions hold. Permissions:
    allowPrinting (default true), allowCopying (default true), allowModifying (default false)."""
    return _pdf(await isolated(protect_pdf, body, **options.model_dump()))


# What its conversion workers import before their first job.
WORKER_MODULES = (
    "fileapi.convert.pdf",
    "fileapi.convert.pdf_edit",
    "fileapi.convert.pdf_forms",
    "pypdfium2",
    "pikepdf",
    "pypdf",
)
app = create_app(router, title="Pdf", worker_modules=WORKER_MODULES)
handler = lambda_handler(app)
