"""Codes function: /v1/qr/* and /v1/barcode/* (generate and decode)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import JSONResponse, Response

from fileapi.convert.codes import (
    MAX_BARCODE_TEXT,
    BarcodeFormat,
    QrOutput,
    generate_barcode,
    generate_qr,
    read_codes,
)
from fileapi.errors import InvalidInput
from fileapi.web.app import create_app, lambda_handler
from fileapi.web.docs import (
    METERED_STATUSES,
    STRING,
    binary_response,
    error_responses,
    object_schema,
    raw_body,
    success_response,
)
from fileapi.web.io import RawBody
from fileapi.web.metering import MeteredRoute, metered

router = APIRouter(route_class=MeteredRoute, dependencies=[Depends(metered)])
ERRORS = error_responses(METERED_STATUSES)
IMAGE_BODY = raw_body("An image: JPEG, PNG, WebP, AVIF, HEIC, GIF, BMP or TIFF (detected from the bytes).")
Colour = Annotated[str, Field(max_length=40)]


class QrGenerateOptions(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"text": "https://example.com", "format": "png", "size": 9, "errorCorrection": "M"}]
        }
    )

    text: Annotated[str, Field(min_length=1, description="Any Unicode text (UTF-8, with ECI when not Latin-1).")]
    format: Literal["png", "svg"] = "png"
    size: Annotated[int, Field(ge=1, le=1000, description="Pixels per module; 9 makes a short URL ~300 px.")] = 9
    margin: Annotated[int, Field(ge=0, le=100, description="Quiet zone in modules.")] = 4
    errorCorrection: Literal["L", "M", "Q", "H"] = "M"
    foreground: Colour = Field(default="#000000", description="#rrggbb.")
    background: Colour = Field(default="#ffffff", description="#rrggbb, or #rrggbbaa / transparent (extension).")


class BarcodeGenerateOptions(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"text": "400638133393", "format": "ean13", "scale": 2, "height": 80}]}
    )

    text: Annotated[str, Field(min_length=1, max_length=MAX_BARCODE_TEXT)]
    format: BarcodeFormat
    output: Literal["svg"] = "svg"
    scale: Annotated[int, Field(ge=1, le=20, description="Pixels per module.")] = 2
    height: Annotated[int | None, Field(ge=1, le=2000, description="Bar height in px (linear codes).")] = None
    includeText: bool = Field(default=True, description="Human-readable text under linear codes.")
    foreground: Colour = Field(default="#000000", description="#rrggbb.")
    background: Colour = Field(default="#ffffff", description="#rrggbb, or #rrggbbaa / transparent.")


@router.post(
    "/v1/qr/generate",
    tags=["QR"],
    summary="Generate a QR code",
    description=(
        "JSON QrGenerateOptions in; PNG or SVG out. size is pixels per module (default 9), margin the quiet zone "
        "in modules (default 4), errorCorrection L/M/Q/H (default M); colours #rrggbb (background also "
        "#rrggbbaa or transparent). Text longer than the QR capacity at the chosen level is 400 naming the "
        "limit; an image wider than 10000 px is 413."
    ),
    responses={**binary_response(("image/png", "image/svg+xml"), "The QR code"), **ERRORS},
)
def qr_generate(options: QrGenerateOptions) -> Response:
    result = generate_qr(
        options.text,
        output=QrOutput(options.format),
        size=options.size,
        margin=options.margin,
        error_correction=options.errorCorrection,
        foreground=options.foreground,
        background=options.background,
    )
    return Response(result.data, media_type=result.media_type)


@router.post(
    "/v1/qr/read",
    tags=["QR"],
    summary="Decode the first QR code in an image",
    description=(
        "An image in; {text, format} of the first QR code found (format qr_code, micro_qr_code or rmqr_code). "
        "Rotated, inverted (light on dark), low-contrast and photographed codes are found; when none is, the "
        "answer is 400 invalid_input 'no QR code found in the image'."
    ),
    openapi_extra=IMAGE_BODY,
    responses={
        **success_response(
            "application/json",
            "Decoded",
            schema=object_schema(
                {"text": STRING, "format": {"type": "string", "enum": ["qr_code", "micro_qr_code", "rmqr_code"]}}
            ),
            example={"text": "https://example.com", "format": "qr_code"},
        ),
        **ERRORS,
    },
)
def qr_read(body: RawBody) -> Response:
    codes = read_codes(body, qr_only=True)
    if not codes:
        raise InvalidInput("no QR code found in the image")
    return JSONResponse({"text": codes[0].text, "format": codes[0].format})


@router.post(
    "/v1/barcode/generate",
    tags=["Barcode"],
    summary="Generate a barcode as SVG",
    description=(
        "JSON BarcodeGenerateOptions in; SVG out. Formats: ean13, ean8, upca, upce, code128, code39, itf14, itf, "
        "datamatrix, pdf417, aztec. EAN/UPC/ITF-14 take digits only; a missing check digit is computed, a wrong "
        "one is 400; itf needs an even number of digits; code39 takes A-Z 0-9 space - . $ / + %; code128 "
        "Latin-1; the 2-D formats up to their capacity. scale: pixels per module (default 2); height: bar height "
        "in px for linear codes (not itf14); includeText (default true) adds the human-readable text."
    ),
    responses={
        **binary_response(("image/svg+xml",), "SVG barcode"),
        **ERRORS,
    },
)
def barcode_generate(options: BarcodeGenerateOptions) -> Response:
    svg = generate_barcode(
        options.text,
        options.format,
        scale=options.scale,
        height=options.height,
        include_text=options.includeText,
        foreground=options.foreground,
        background=options.background,
    )
    return Response(svg, media_type="image/svg+xml")


@router.post(
    "/v1/barcode/read",
    tags=["Barcode"],
    summary="Decode every barcode in an image",
    description=(
        "An image in; {codes: [{text, format}]} for every code found (QR codes too), formats named as in "
        "barcode/generate (upca for a UPC-A, itf14 for a 14-digit ITF with a valid check digit; others in lower "
        "case, e.g. codabar, code93, qr_code). No code found: 200 with an empty list."
    ),
    openapi_extra=IMAGE_BODY,
    responses={
        **success_response(
            "application/json",
            "Decoded codes",
            schema=object_schema(
                {"codes": {"type": "array", "items": object_schema({"text": STRING, "format": STRING})}}
            ),
            example={"codes": [{"text": "4006381333931", "format": "ean13"}]},
        ),
        **ERRORS,
    },
)
def barcode_read(body: RawBody) -> Response:
    return JSONResponse({"codes": [{"text": code.text, "format": code.format} for code in read_codes(body)]})


app = create_app(router, title="Codes")
handler = lambda_handler(app)
