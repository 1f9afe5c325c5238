"""Pdf function: /v1/pdf/* (all 11 endpoints)."""

from __future__ import annotations

import base64
import binascii
from typing import Annotated, Literal

import orjson
from fastapi import APIRouter, Depends, Query, Request
from starlette.datastructures import UploadFile
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
from fileapi.errors import InvalidInput
from fileapi.models.pdf import (
    CompressOptions,
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
from fileapi.web.deadline import within_deadline
from fileapi.web.docs import model_body, raw_body
from fileapi.web.io import RawBody
from fileapi.web.metering import MeteredRoute, metered
from fileapi.web.routes import answers_bytes, answers_json, json_response

router = APIRouter(route_class=MeteredRoute, dependencies=[Depends(metered)], tags=["PDF"])
PDF_BODY = raw_body("A PDF document (any Content-Type, e.g. application/pdf).")
PDF_OUT = answers_bytes(("application/pdf",), "The PDF")
Pages = Annotated[str | None, Query(max_length=1000, description="Pages such as '1,3,5', '2-4' or 'all'.")]


def _pdf(data: bytes) -> Response:
    return Response(data, media_type="application/pdf")


@router.post(
    "/v1/pdf/info",
    summary="Page count, page sizes, metadata and encryption of a PDF",
    description=(
        "pageSizes are in PDF points as displayed (width and height swapped for pages with /Rotate 90 or 270); "
        "metadata holds the info dictionary's title, author, subject, keywords, producer and creator when "
        "present. A PDF encrypted with an empty user password answers (encrypted: true); one that needs a "
        "password is 400 invalid_input. At most 2,000 pages (413)."
    ),
    openapi_extra=PDF_BODY,
    **answers_json(PdfInfoResult),
)
def info(body: RawBody) -> Response:
    return json_response(PdfInfoResult.model_validate(pdf_info(body)))


@router.post(
    "/v1/pdf/extract-text",
    summary="Extract the text of a PDF",
    description=(
        "Vector text only (no OCR), with pdfium. pages: '1-3', '1,3,5' or 'all' (default all). pages[] holds one "
        "string per chosen page; text joins them with a form feed (U+000C) between pages."
    ),
    openapi_extra=PDF_BODY,
    **answers_json(PdfExtractTextResult),
)
def text(body: RawBody, pages: Pages = None) -> Response:
    return json_response(PdfExtractTextResult.model_validate(extract_text(body, pages=pages)))


@router.post(
    "/v1/pdf/render-page",
    summary="Render PDF pages as images",
    description=(
        "pages (default: the first page only), format png (default), jpeg or webp, dpi 72-300 (default 150): a "
        "612 x 792 pt page at 72 dpi is 612 x 792 px. Annotations and form fields are drawn. A page over 50 "
        "megapixels, more than 200 megapixels in one call, or a result over the response limit is 413 (ask for "
        "fewer pages or a lower dpi)."
    ),
    openapi_extra=PDF_BODY,
    **answers_json(PdfRenderPageResult),
)
def render(body: RawBody, options: Annotated[RenderOptions, Query()]) -> Response:
    rendered = render_pages(body, **options.model_dump())
    return json_response(PdfRenderPageResult(pages=[RenderedPage.model_validate(page) for page in rendered]))


@router.post(
    "/v1/pdf/merge",
    summary="Merge PDFs",
    description=(
        "multipart/form-data with one or more parts named `files` (PDF files). Also accepted, and left out of "
        "the document because code generators mishandle a body offered two ways: JSON {files: [base64 PDFs]}. "
        "Order is kept; outlines, named destinations and form fields survive. An input that is not a PDF is "
        "400 naming its position. At most 5,000 pages in all."
    ),
    openapi_extra=model_body("multipart/form-data", PdfMergeForm),
    **PDF_OUT,
)
async def merge(request: Request) -> Response:
    content_type = request.headers.get("content-type", "").lower()
    if content_type.startswith("multipart/form-data"):
        form = await request.form(max_files=500, max_fields=500)
        documents = [await part.read() for part in form.getlist("files") if isinstance(part, UploadFile)]
        if not documents:
            raise InvalidInput("send the PDFs as form parts named 'files'")
    else:
        documents = _json_files(await request.body())
    return _pdf(await within_deadline(merge_pdfs, documents))


def _json_files(body: bytes) -> list[bytes]:
    files = _json_object(body, "the body", hint=MERGE_HINT).get("files")
    if not isinstance(files, list) or not files:
        raise InvalidInput("files: a non-empty array of base64-encoded PDFs is required")
    return [_base64(item, f"files[{position}]") for position, item in enumerate(files, start=1)]


@router.post(
    "/v1/pdf/split",
    summary="Split a PDF by page ranges",
    description=(
        "ranges (required): comma-separated ranges such as '1-3,4-4,7' (a lone page allowed, spaces tolerated); "
        "one PDF per range, in the order given. A range outside the document or reversed is 400."
    ),
    openapi_extra=PDF_BODY,
    **answers_json(PdfSplitResult),
)
def split(body: RawBody, ranges: Annotated[str, Query(max_length=1000, description="e.g. '1-3,4-4,7'.")]) -> Response:
    parts = split_pdf(body, ranges=ranges)
    return json_response(PdfSplitResult(pdfs=[base64.b64encode(part).decode("ascii") for part in parts]))


@router.post(
    "/v1/pdf/rotate",
    summary="Rotate PDF pages clockwise",
    description=(
        "degrees 90, 180 or 270 clockwise, added to each page's existing /Rotate; pages '1,3,5', ranges '2-4' "
        "or 'all' (default)."
    ),
    openapi_extra=PDF_BODY,
    **PDF_OUT,
)
def rotate(
    body: RawBody,
    degrees: Annotated[Literal["90", "180", "270"], Query(description="Clockwise rotation in degrees.")],
    pages: Pages = None,
) -> Response:
    return _pdf(rotate_pdf(body, degrees=int(degrees), pages=pages))


@router.post(
    "/v1/pdf/watermark",
    summary="Watermark PDF pages with text",
    description=(
        "text (required, Windows-1252 characters: the standard PDF fonts cover no more; other text is 400) drawn "
        f"centred on each chosen page (default all) as real text in Helvetica, grey; opacity 0-1 (default "
        f"{DEFAULT_OPACITY}); rotation in degrees counter-clockwise (default {DEFAULT_ROTATION:g}); fontSize in "
        "points (default: the text spans about 60% of the page's diagonal)."
    ),
    openapi_extra=PDF_BODY,
    **PDF_OUT,
)
def watermark(body: RawBody, options: Annotated[WatermarkOptions, Query()]) -> Response:
    return _pdf(watermark_pdf(body, **options.model_dump()))


@router.post(
    "/v1/pdf/fill-form",
    summary="Fill a PDF form",
    description=(
        "JSON {pdf: base64, fields: {name: value}, flatten?: boolean}. Also accepted, and left out of the document "
        "because code generators mishandle a body offered two ways: multipart/form-data with file (the PDF), "
        "fields (a JSON object as text) and flatten ('true'/'false'). Text fields take text; check boxes true/false "
        "or their export value; radio groups an export value; choice fields one of their options (a list for "
        "multi-select). A field that does not exist is 400 naming it. Appearance streams are generated. With "
        "flatten=true the values are baked into the page content and the widgets and the AcroForm are removed."
    ),
    openapi_extra=model_body("application/json", PdfFillFormRequest),
    **PDF_OUT,
)
async def fill(request: Request) -> Response:
    content_type = request.headers.get("content-type", "").lower()
    if content_type.startswith("multipart/form-data"):
        form = await request.form(max_files=1, max_fields=10)
        upload = form.get("file")
        if not isinstance(upload, UploadFile):
            raise InvalidInput("file: the PDF is required as a form part named 'file'")
        document = await upload.read()
        fields = _json_object(form.get("fields"), "fields")
        flatten = _flag(form.get("flatten"))
    else:
        payload = _json_object(await request.body(), "the body", hint=FILL_HINT)
        document = _base64(payload.get("pdf"), "pdf")
        given_fields, given_flatten = payload.get("fields"), payload.get("flatten", False)
        if not isinstance(given_fields, dict):
            raise InvalidInput("fields: an object of field name to value is required")
        if not isinstance(given_flatten, bool):
            raise InvalidInput("flatten must be true or false")
        fields, flatten = given_fields, given_flatten
    return _pdf(await within_deadline(fill_form, document, fields=fields, flatten=flatten))


MERGE_HINT = 'send the PDFs as form parts (-F files=@a.pdf -F files=@b.pdf) or JSON {"files": [base64 PDFs]}'
FILL_HINT = 'send -F file=@form.pdf -F \'fields={...}\' or JSON {"pdf": base64 PDF, "fields": {...}}'


def _json_object(raw: object, what: str, *, hint: str = "") -> dict[str, object]:
    then = f"; {hint}" if hint else ""
    if not isinstance(raw, str | bytes) or not raw:
        raise InvalidInput(f"{what}: a JSON object is required{then}")
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise InvalidInput(f"{what} is not valid JSON{then}") from None
    if not isinstance(value, dict):
        raise InvalidInput(f"{what} must be a JSON object{then}")
    return value


def _base64(value: object, what: str) -> bytes:
    if not isinstance(value, str) or not value:
        raise InvalidInput(f"{what}: a base64-encoded PDF is required")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise InvalidInput(f"{what} is not valid base64") from None


def _flag(value: object) -> bool:
    if value is None:
        return False
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "1", "0", ""):
        return value.strip().lower() in ("true", "1")
    raise InvalidInput("flatten must be 'true' or 'false'")


@router.post(
    "/v1/pdf/flatten",
    summary="Flatten a PDF form",
    description=(
        "Bakes the values the form holds into the page content and removes the widgets and the AcroForm, so the "
        "values can no longer be edited. A PDF without form fields is returned unchanged."
    ),
    openapi_extra=PDF_BODY,
    **PDF_OUT,
)
def flatten(body: RawBody) -> Response:
    return _pdf(flatten_form(body))


@router.post(
    "/v1/pdf/compress",
    summary="Compress a PDF",
    description=(
        "Lossless structure compression (object streams, recompressed streams, unreferenced resources dropped); "
        "stripMetadata (default false) removes the info dictionary and XMP metadata; imageMaxSide (16-10000, off "
        "by default) downsamples images whose longer side is larger, re-encoding them as JPEG quality 85. Never "
        "returns a larger file: then the input comes back with savedPercent 0. Sizes are integers (bytes); "
        "savedPercent is a number with one decimal."
    ),
    openapi_extra=PDF_BODY,
    **answers_json(PdfCompressResult),
)
def compress(body: RawBody, options: Annotated[CompressOptions, Query()]) -> Response:
    result = compress_pdf(body, **options.model_dump())
    document = base64.b64encode(result.data).decode("ascii")
    return json_response(PdfCompressResult.model_validate({**vars(result), "bytes": document}))


@router.post(
    "/v1/pdf/protect",
    summary="Password-protect a PDF (AES-256)",
    description=(
        "userPassword (required, 1-128 characters) is needed to open the document. ownerPassword (optional) grants "
        "full rights; without it a random owner password is used, so the restrictions hold. Permissions: "
        "allowPrinting (default true), allowCopying (default true), allowModifying (default false)."
    ),
    openapi_extra=PDF_BODY,
    **PDF_OUT,
)
def protect(body: RawBody, options: Annotated[ProtectOptions, Query()]) -> Response:
    return _pdf(protect_pdf(body, **options.model_dump()))


app = create_app(router, title="Pdf")
handler = lambda_handler(app)
