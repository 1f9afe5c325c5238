"""Pdf function: /v1/pdf/* (all 11 endpoints)."""

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
from fileapi.convert.pdf_edit import DEFAULT_OPACITY, DEFAULT_ROTATION, compress_pdf, protect_pdf, watermark_pdf
from fileapi.convert.pdf_forms import fill_form, flatten_form
from fileapi.errors import InvalidInput
from fileapi.web.app import create_app, lambda_handler
from fileapi.web.deadline import within_deadline
from fileapi.web.docs import (
    BASE64,
    INTEGER,
    METERED_STATUSES,
    NUMBER,
    STRING,
    binary_body,
    error_responses,
    object_schema,
    success_response,
)
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
            schema=object_schema(
                {
                    "pageCount": INTEGER,
                    "pageSizes": {"type": "array", "items": object_schema({"width": NUMBER, "height": NUMBER})},
                    "metadata": {
                        "type": "object",
                        "additionalProperties": STRING,
                        "description": "title, author, subject, keywords, producer, creator when present.",
                    },
                    "encrypted": {"type": "boolean"},
                }
            ),
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
            schema=object_schema(
                {
                    "text": {"type": "string", "description": "The pages' text joined by form feeds."},
                    "pages": {"type": "array", "items": STRING},
                }
            ),
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
        "megapixels, more than 200 megapixels in one call, or a result over the response limit is 413 (ask for "
        "fewer pages or a lower dpi)."
    ),
    openapi_extra=PDF_BODY,
    responses={
        **success_response(
            "application/json",
            "PdfRenderPageResult",
            schema=object_schema(
                {
                    "pages": {
                        "type": "array",
                        "items": object_schema(
                            {
                                "page": {**INTEGER, "description": "1-based page number."},
                                "bytes": {**BASE64, "description": "The image, base64-encoded."},
                                "width": INTEGER,
                                "height": INTEGER,
                            }
                        ),
                    }
                }
            ),
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
                        "properties": {
                            "files": {
                                "type": "array",
                                "items": {"type": "string", "format": "binary"},
                                "description": "The PDFs, in order.",
                            }
                        },
                    }
                },
                "application/json": {
                    "schema": {
                        "type": "object",
                        "required": ["files"],
                        "properties": {
                            "files": {
                                "type": "array",
                                "items": {"type": "string", "format": "byte"},
                                "description": "The PDFs, in order, Base64-encoded.",
                            }
                        },
                    },
                    "example": {"files": ["JVBERi0xLjcK...", "JVBERi0xLjQK..."]},
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
    responses={
        **success_response(
            "application/json",
            "PDFs",
            schema=object_schema({"pdfs": {"type": "array", "items": BASE64, "description": "One PDF per range."}}),
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
    responses={**PDF_OUT, **ERRORS},
)
def watermark(
    body: RawBody,
    text: Annotated[str, Query(min_length=1, max_length=200, description="Watermark text.")],
    opacity: Annotated[float, Query(ge=0, le=1, description="0 (invisible) to 1 (opaque).")] = DEFAULT_OPACITY,
    rotation: Annotated[float, Query(ge=-360, le=360, description="Degrees, counter-clockwise.")] = DEFAULT_ROTATION,
    fontSize: Annotated[float | None, Query(ge=1, le=1000, description="Points.")] = None,
    pages: Pages = None,
) -> Response:
    return _pdf(watermark_pdf(body, text=text, opacity=opacity, rotation=rotation, font_size=fontSize, pages=pages))


@router.post(
    "/v1/pdf/fill-form",
    summary="Fill a PDF form",
    description=(
        "JSON {pdf: base64, fields: {name: value}, flatten?: boolean} or multipart/form-data with file (the PDF), "
        "fields (a JSON object as text) and flatten ('true'/'false'). Text fields take text; check boxes true/false "
        "or their export value; radio groups an export value; choice fields one of their options (a list for "
        "multi-select). A field that does not exist is 400 naming it. Appearance streams are generated. With "
        "flatten=true the values are baked into the page content and the widgets and the AcroForm are removed."
    ),
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {
                    "schema": {
                        "type": "object",
                        "required": ["pdf", "fields"],
                        "properties": {
                            "pdf": {"type": "string", "format": "byte", "description": "The PDF form, Base64-encoded."},
                            "fields": {
                                "type": "object",
                                "additionalProperties": True,
                                "description": "Field name to value: text, true/false, an export value or a list.",
                            },
                            "flatten": {
                                "type": "boolean",
                                "default": False,
                                "description": "Bake the values into the pages and remove the form.",
                            },
                        },
                    },
                    "example": {
                        "pdf": "JVBERi0xLjcK...",
                        "fields": {"name": "Ada Lovelace", "agree": True, "country": "UK"},
                        "flatten": False,
                    },
                },
                "multipart/form-data": {
                    "schema": {
                        "type": "object",
                        "required": ["file", "fields"],
                        "properties": {
                            "file": {"type": "string", "format": "binary", "description": "The PDF form."},
                            "fields": {"type": "string", "description": "A JSON object of field name to value."},
                            "flatten": {"type": "string", "enum": ["true", "false"], "description": "Default false."},
                        },
                    }
                },
            },
        }
    },
    responses={**PDF_OUT, **ERRORS},
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
    responses={**PDF_OUT, **ERRORS},
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
    responses={
        **success_response(
            "application/json",
            "Compressed PDF",
            schema={
                "type": "object",
                "required": ["bytes", "originalSize", "compressedSize", "savedPercent"],
                "properties": {
                    "bytes": {"type": "string", "format": "byte"},
                    "originalSize": {"type": "integer"},
                    "compressedSize": {"type": "integer"},
                    "savedPercent": {"type": "number"},
                },
            },
            example={"bytes": "JVBERi0xLjcK...", "originalSize": 120000, "compressedSize": 90000, "savedPercent": 25.0},
        ),
        **ERRORS,
    },
)
def compress(
    body: RawBody,
    stripMetadata: Annotated[bool, Query(description="Remove the info dictionary and XMP.")] = False,
    imageMaxSide: Annotated[int | None, Query(ge=16, le=10_000, description="Downsample larger images.")] = None,
) -> Response:
    result = compress_pdf(body, strip_metadata=stripMetadata, image_max_side=imageMaxSide)
    return JSONResponse(
        {
            "bytes": base64.b64encode(result.data).decode("ascii"),
            "originalSize": result.originalSize,
            "compressedSize": result.compressedSize,
            "savedPercent": result.savedPercent,
        }
    )


@router.post(
    "/v1/pdf/protect",
    summary="Password-protect a PDF (AES-256)",
    description=(
        "userPassword (required, 1-128 characters) is needed to open the document. ownerPassword (optional) grants "
        "full rights; without it a random owner password is used, so the restrictions hold. Permissions: "
        "allowPrinting (default true), allowCopying (default true), allowModifying (default false)."
    ),
    openapi_extra=PDF_BODY,
    responses={**PDF_OUT, **ERRORS},
)
def protect(
    body: RawBody,
    userPassword: Annotated[str, Query(min_length=1, max_length=128, description="Password to open.")],
    ownerPassword: Annotated[str | None, Query(min_length=1, max_length=128, description="Full rights.")] = None,
    allowPrinting: bool = True,
    allowCopying: bool = True,
    allowModifying: bool = False,
) -> Response:
    return _pdf(
        protect_pdf(
            body,
            user_password=userPassword,
            owner_password=ownerPassword,
            allow_printing=allowPrinting,
            allow_copying=allowCopying,
            allow_modifying=allowModifying,
        )
    )


app = create_app(router, title="Pdf")
handler = lambda_handler(app)
