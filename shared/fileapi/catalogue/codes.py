"""The QR code and barcode conversions (the Codes function)."""

from __future__ import annotations

from fileapi.catalogue.converters import Named
from fileapi.catalogue.declaration import IMAGE, Conversion, Reads, Takes, gives_file, gives_json
from fileapi.models.codes import BarcodeGenerateOptions, BarcodeReadResult, QrGenerateOptions, QrReadResult

FAMILY = "codes"
AN_IMAGE = Takes(
    Reads.FILE, IMAGE, doc="An image: JPEG, PNG, WebP, AVIF, HEIC, JPEG XL, GIF, BMP or TIFF (detected from the bytes)."
)
OPTIONS_ALONE = Takes(Reads.JSON)
# What the family's conversion workers import before their first job.
WORKER_MODULES = (
    "fileapi.convert.qr",
    "fileapi.convert.barcodes",
    "fileapi.convert.code_reading",
    "zxingcpp",
    "segno",
    "PIL.Image",
)

CONVERSIONS = (
    Conversion(
        path="/v1/qr/generate",
        family=FAMILY,
        summary="Generate a QR code",
        description="JSON QrGenerateOptions in; PNG or SVG out. size is pixels per module (default 9), margin the "
        "quiet zone in modules (default 4), errorCorrection L/M/Q/H (default M); colours #rrggbb (background also "
        "#rrggbbaa or transparent). Text longer than the QR capacity at the chosen level is 400 naming the limit; an "
        "image wider than 10000 px is 413.",
        takes=OPTIONS_ALONE,
        options=QrGenerateOptions,
        gives=gives_file(("image/png", "image/svg+xml"), "The QR code"),
        convert=Named("fileapi.convert.qr", "generate_qr"),
        tags=("QR",),
        example={"text": "https://example.com"},
    ),
    Conversion(
        path="/v1/qr/read",
        family=FAMILY,
        summary="Decode the first QR code in an image",
        description="An image in; {text, format} of the first QR code found (format qr_code, micro_qr_code or "
        "rmqr_code). Rotated, inverted (light on dark), low-contrast and photographed codes are found; when none is, "
        "the answer is 400 invalid_input 'no QR code found in the image'. text is the data as encoded, control "
        "characters included (a GS1 or UDI label's separators as U+001D, U+001E).",
        takes=AN_IMAGE,
        gives=gives_json(QrReadResult, "Decoded"),
        convert=Named("fileapi.convert.code_reading", "read_qr"),
        tags=("QR",),
    ),
    Conversion(
        path="/v1/barcode/generate",
        family=FAMILY,
        summary="Generate a barcode as SVG",
        description="JSON BarcodeGenerateOptions in; SVG out. Formats: ean13, ean8, upca, upce, code128, code39, "
        "itf14, itf, datamatrix, pdf417, aztec. EAN/UPC/ITF-14 take digits only; a missing check digit is computed, "
        "a wrong one is 400; itf needs an even number of digits; code39 takes A-Z 0-9 space - . $ / + %; code128 "
        "Latin-1; the 2-D formats up to their capacity. scale: pixels per module (default 2); height: bar height in "
        "px for linear codes (not itf14); includeText (default true) adds the human-readable text.",
        takes=OPTIONS_ALONE,
        options=BarcodeGenerateOptions,
        gives=gives_file(("image/svg+xml",), "SVG barcode"),
        convert=Named("fileapi.convert.barcodes", "generate_barcode"),
        tags=("Barcode",),
        example={"format": "code128", "text": "ABC-123"},
    ),
    Conversion(
        path="/v1/barcode/read",
        family=FAMILY,
        summary="Decode every barcode in an image",
        description="An image in; {codes: [{text, format}]} for every code found (QR codes too), formats named as in "
        "barcode/generate (upca for a UPC-A, itf14 for a 14-digit ITF with a valid check digit; others in lower "
        "case, e.g. codabar, code93, qr_code). No code found: 200 with an empty list. text is the data as encoded, "
        "control characters included (a GS1 or UDI label's separators as U+001D, U+001E).",
        takes=AN_IMAGE,
        gives=gives_json(BarcodeReadResult, "Decoded codes"),
        convert=Named("fileapi.convert.code_reading", "read_barcodes"),
        tags=("Barcode",),
    ),
)
