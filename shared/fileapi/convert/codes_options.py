"""The QR code and barcode converters' option values, for the options models to import without loading the
converters."""

from __future__ import annotations

from enum import StrEnum

MAX_BARCODE_TEXT = 4000  # characters of barcode/generate's text


class QrOutput(StrEnum):
    PNG = "png"
    SVG = "svg"


class BarcodeFormat(StrEnum):
    """Barcode symbologies that barcode/generate writes (linear, then 2-D)."""

    EAN13 = "ean13"
    EAN8 = "ean8"
    UPCA = "upca"
    UPCE = "upce"
    CODE128 = "code128"
    CODE39 = "code39"
    ITF14 = "itf14"
    ITF = "itf"
    DATAMATRIX = "datamatrix"
    PDF417 = "pdf417"
    AZTEC = "aztec"

    @property
    def linear(self) -> bool:
        return self not in (BarcodeFormat.DATAMATRIX, BarcodeFormat.PDF417, BarcodeFormat.AZTEC)
