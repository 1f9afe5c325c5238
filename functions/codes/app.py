"""Codes function: /v1/qr/* and /v1/barcode/* (generate and decode)."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from starlette.responses import Response

from fileapi.convert.barcodes import generate_barcode
from fileapi.convert.code_reading import read_codes
from fileapi.convert.qr import generate_qr
from fileapi.errors import InvalidInput
from fileapi.models.codes import BarcodeGenerateOptions, BarcodeReadResult, DecodedCode, QrGenerateOptions, QrReadResult
from fileapi.web.app import create_app, lambda_handler
from fileapi.web.conversions import isolated
from fileapi.web.docs import ISOLATED_STATUSES, raw_body
from fileapi.web.io import RawBody
from fileapi.web.metering import MeteredRoute, metered
from fileapi.web.routes import Routes, answers_bytes, answers_json, json_response

router = APIRouter(route_class=MeteredRoute, dependencies=[Depends(metered)])
IMAGE_BODY = raw_body("An image: JPEG, PNG, WebP, AVIF, HEIC, GIF, BMP or TIFF (detected from the bytes).")
qr = Routes(router, tags=["QR"], statuses=ISOLATED_STATUSES)
barcodes = Routes(router, tags=["Barcode"], statuses=ISOLATED_STATUSES)


@qr.post("/v1/qr/generate", "Generate a QR code", answers_bytes(("image/png", "image/svg+xml"), "The QR code"))
async def qr_generate(options: QrGenerateOptions) -> Response:
    """JSON QrGenerateOptions in; PNG or SVG out. size is pixels per module (default 9), margin the quiet zone in
    modules (default 4), errorCorrection L/M/Q/H (default M); colours #rrggbb (background also #rrggbbaa or
    transparent). Text longer than the QR capacity at the chosen level is 400 naming the limit; an image wider
    than 10000 px is 413."""
    result = await isolated(generate_qr, **options.model_dump())
    return Response(result.data, media_type=result.media_type)


@qr.post("/v1/qr/read", "Decode the first QR code in an image", answers_json(QrReadResult, "Decoded"), body=IMAGE_BODY)
async def qr_read(body: RawBody) -> Response:
    """An image in; {text, format} of the first QR code found (format qr_code, micro_qr_code or rmqr_code).
    Rotated, inverted (light on dark), low-contrast and photographed codes are found; when none is, the answer is
    400 invalid_input 'no QR code found in the image'."""
    codes = await isolated(read_codes, body, qr_only=True)
    if not codes:
        raise InvalidInput("no QR code found in the image")
    return json_response(QrReadResult.model_validate(codes[0]))


@barcodes.post("/v1/barcode/generate", "Generate a barcode as SVG", answers_bytes(("image/svg+xml",), "SVG barcode"))
async def barcode_generate(options: BarcodeGenerateOptions) -> Response:
    """JSON BarcodeGenerateOptions in; SVG out. Formats: ean13, ean8, upca, upce, code128, code39, itf14, itf,
    datamatrix, pdf417, aztec. EAN/UPC/ITF-14 take digits only; a missing check digit is computed, a wrong one is
    400; itf needs an even number of digits; code39 takes A-Z 0-9 space - . $ / + %; code128 Latin-1; the 2-D
    formats up to their capacity. scale: pixels per module (default 2); height: bar height in px for linear codes
    (not itf14); includeText (default true) adds the human-readable text."""
    return Response(await isolated(generate_barcode, **options.model_dump()), media_type="image/svg+xml")


@barcodes.post(
    "/v1/barcode/read",
    "Decode every barcode in an image",
    answers_json(BarcodeReadResult, "Decoded codes"),
    body=IMAGE_BODY,
)
async def barcode_read(body: RawBody) -> Response:
    """An image in; {codes: [{text, format}]} for every code found (QR codes too), formats named as in
    barcode/generate (upca for a UPC-A, itf14 for a 14-digit ITF with a valid check digit; others in lower case,
    e.g. codabar, code93, qr_code). No code found: 200 with an empty list."""
    codes = await isolated(read_codes, body)
    return json_response(BarcodeReadResult(codes=[DecodedCode.model_validate(code) for code in codes]))


# What its conversion workers import before their first job.
WORKER_MODULES = (
    "fileapi.convert.qr",
    "fileapi.convert.barcodes",
    "fileapi.convert.code_reading",
    "zxingcpp",
    "segno",
    "PIL.Image",
)
app = create_app(router, title="Codes", worker_modules=WORKER_MODULES)
handler = lambda_handler(app)
