"""Pdf function: /v1/pdf/* (info, extract-text, render-page, merge, split, rotate)."""

from __future__ import annotations

import base64
import binascii
from dataclasses import asdict
from typing import Annotated, Literal

import orjson
from fastapi import APIRouter, Depends, Query, Request
from starlette.datastructures import UploadFile
from starlette.responses import JSONResponse, Response

from fileapi.convert.pdf import (
    RenderFormat,
    extract_text,
    merge_pdfs,
    pdf_info,
    render_pages,
    rotate_pdf,
    split_pdf,
)
from fileapi.errors import InvalidInput
from fileapi.web.app import create_app, lambda_handler
from fileapi.web.docs import METERED_STATUSES, binary_body, error_responses, success_response
from fileapi.web.io import RawBody
from fileapi.web.metering import MeteredRoute, metered

router = APIRouter(route_class=MeteredRoute, dependencies=[Depends(metered)], tags=["PDF"])
ERRORS = error_responses(METERED_STATUSES)
PDF_BODY = binary_body(("application/pdf", "application/octet-stream"), "A PDF document.")
PDF_OUT = success_response("application/pdf", "The PDF")
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
    responses={
        **success_response(
            "application/json",
            "PdfInfo",
            schema={"type": "object", "required": ["pageCount", "pageSizes", "metadata", "encrypted"]},
            example={
                "pageCount": 1,
                "pageSizes": [{"width": 612.0, "height": 792.0}],
                "metadata": {"title": "Report", "producer": "LibreOffice"},
                "encrypted": False,
            },
        ),
        **ERRORS,
    },
)
def info(body: RawBody) -> Response:
    return JSONResponse(asdict(pdf_info(body)))


@router.post(
    "/v1/pdf/extract-text",
    summary="Extract the text of a PDF",
    description=(
        "Vector text only (no OCR), with pdfium. pages: '1-3', '1,3,5' or 'all' (default all). pages[] holds one "
        "string per chosen page; text joins them with a form feed (U+000C) between pages."
    ),
    openapi_extra=PDF_BODY,
    responses={
        **success_response(
            "application/json",
            "PdfTextResult",
            schema={"type": "object", "required": ["text", "pages"]},
            example={"text": "Page one\fPage two", "pages": ["Page one", "Page two"]},
        ),
        **ERRORS,
    },
)
def text(body: RawBody, pages: Pages = None) -> Response:
    return JSONResponse(asdict(extract_text(body, pages=pages)))


@router.post(
    "/v1/pdf/render-page",
    summary="Render PDF pages as images",
    description=(
        "pages (default: the first page only), format png (default), jpeg or webp, dpi 72-300 (default 150): a "
        "612 x 792 pt page at 72 dpi is 612 x 792 px. Annotations and form fields are drawn. A page over 50 "
        "megapixels, or a result over the response limit, is 413 (ask for fewer pages or a lower dpi)."
    ),
    openapi_extra=PDF_BODY,
    responses={
        **success_response(
            "application/json",
            "PdfRenderPageResult",
            schema={"type": "object", "required": ["pages"]},
            example={"pages": [{"page": 1, "bytes": "iVBORw0KGgo...", "width": 1275, "height": 1650}]},
        ),
        **ERRORS,
    },
)
def render(
    body: RawBody,
    pages: Pages = None,
    format: Annotated[RenderFormat, Query(description="Image format.")] = RenderFormat.PNG,
    dpi: Annotated[int, Query(ge=72, le=300, description="Resolution, dots per inch.")] = 150,
) -> Response:
    rendered = render_pages(body, pages=pages, fmt=format, dpi=dpi)
    return JSONResponse({"pages": [asdict(page) for page in rendered]})


@router.post(
    "/v1/pdf/merge",
    summary="Merge PDFs",
    description=(
        "multipart/form-data with one or more parts named `files` (PDF files), or JSON {files: [base64 PDFs]}. "
        "Order is kept; outlines, named destinations and form fields survive. An input that is not a PDF is "
        "400 naming its position. At most 5,000 pages in all."
    ),
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "multipart/form-data": {
                    "schema": {
                        "type": "object",
                        "required": ["files"],
                        "properties": {"files": {"type": "array", "items": {"type": "string", "format": "binary"}}},
                    }
                },
                "application/json": {
                    "schema": {
                        "type": "object",
                        "required": ["files"],
                        "properties": {"files": {"type": "array", "items": {"type": "string", "format": "byte"}}},
                    }
                },
            },
        }
    },
    responses={**PDF_OUT, **ERRORS},
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
    return _pdf(merge_pdfs(documents))


def _json_files(body: bytes) -> list[bytes]:
    try:
        payload = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise InvalidInput("send multipart/form-data parts named 'files', or JSON {\"files\": [base64, ...]}") from None
    files = payload.get("files") if isinstance(payload, dict) else None
    if not isinstance(files, list) or not files:
        raise InvalidInput("files: a non-empty array of base64-encoded PDFs is required")
    documents = []
    for position, item in enumerate(files, start=1):
        if not isinstance(item, str):
            raise InvalidInput(f"files[{position}] is not a base64 string")
        try:
            documents.append(base64.b64decode(item, validate=True))
        except (binascii.Error, ValueError):
            raise InvalidInput(f"files[{position}] is not valid base64") from None
    return documents


@router.post(
    "/v1/pdf/split",
    summary="Split a PDF by page ranges",
    description=(
        "ranges (required): comma-separated ranges such as '1-3,4-4,7' (a lone page allowed, spaces tolerated); "
        "one PDF per range, in the order given. A range outside the document or reversed is 400."
    ),
    openapi_extra=PDF_BODY,
    responses={
        **success_response(
            "application/json",
            "PDFs",
            schema={"type": "object", "required": ["pdfs"]},
            example={"pdfs": ["JVBERi0xLjcK..."]},
        ),
        **ERRORS,
    },
)
def split(body: RawBody, ranges: Annotated[str, Query(max_length=1000, description="e.g. '1-3,4-4,7'.")]) -> Response:
    parts = split_pdf(body, ranges=ranges)
    return JSONResponse({"pdfs": [base64.b64encode(part).decode("ascii") for part in parts]})


@router.post(
    "/v1/pdf/rotate",
    summary="Rotate PDF pages clockwise",
    description=(
        "degrees 90, 180 or 270 clockwise, added to each page's existing /Rotate; pages '1,3,5', ranges '2-4' "
        "or 'all' (default)."
    ),
    openapi_extra=PDF_BODY,
    responses={**PDF_OUT, **ERRORS},
)
def rotate(
    body: RawBody,
    degrees: Annotated[Literal["90", "180", "270"], Query(description="Clockwise rotation in degrees.")],
    pages: Pages = None,
) -> Response:
    return _pdf(rotate_pdf(body, degrees=int(degrees), pages=pages))


app = create_app(router, title="Pdf")
handler = lambda_handler(app)
