"""QR codes and barcodes: generation options and decoded codes."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from fileapi.convert.codes_options import MAX_BARCODE_TEXT, BarcodeFormat, QrOutput
from fileapi.models import ApiModel, ApiRequest, example

Colour = Annotated[str, Field(max_length=40)]


# The fields of the two generators' options are their converters' arguments (tests/unit/models/test_options_models.py):
# a route calls `generate_qr(**options.model_dump())`.


class QrGenerateOptions(ApiRequest):
    """What to encode in a QR code, and how it looks."""

    model_config = example({"text": "https://example.com", "format": "png", "size": 9, "errorCorrection": "M"})

    text: str = Field(min_length=1, description="Any Unicode text (UTF-8, with ECI when not Latin-1).")
    output: Literal[QrOutput.PNG, QrOutput.SVG] = Field(
        default=QrOutput.PNG, alias="format", description="Image format of the answer."
    )
    size: int = Field(default=9, ge=1, le=1000, description="Pixels per module; 9 makes a short URL ~300 px.")
    margin: int = Field(default=4, ge=0, le=100, description="Quiet zone in modules.")
    error_correction: Literal["L", "M", "Q", "H"] = Field(default="M", description="Error correction level.")
    foreground: Colour = Field(default="#000000", description="#rrggbb.")
    background: Colour = Field(default="#ffffff", description="#rrggbb, or #rrggbbaa / transparent (extension).")


class BarcodeGenerateOptions(ApiRequest):
    """What to encode in a barcode, and how it looks."""

    model_config = example({"text": "400638133393", "format": "ean13", "scale": 2, "height": 80})

    text: str = Field(min_length=1, max_length=MAX_BARCODE_TEXT, description="The data to encode.")
    fmt: BarcodeFormat = Field(alias="format", description="Symbology.")
    output: Literal["svg"] = Field(default="svg", exclude=True, description="Image format of the answer.")
    scale: int = Field(default=2, ge=1, le=20, description="Pixels per module.")
    height: int | None = Field(default=None, ge=1, le=2000, description="Bar height in px (linear codes).")
    include_text: bool = Field(default=True, description="Human-readable text under linear codes.")
    foreground: Colour = Field(default="#000000", description="#rrggbb.")
    background: Colour = Field(default="#ffffff", description="#rrggbb, or #rrggbbaa / transparent.")


class QrReadResult(ApiModel):
    """The first QR code found."""

    model_config = example({"text": "https://example.com", "format": "qr_code"})

    text: str = Field(description="The decoded text.")
    format: Literal["qr_code", "micro_qr_code", "rmqr_code"] = Field(description="Kind of QR code.")


class DecodedCode(ApiModel):
    """One code found in the image."""

    model_config = example({"text": "4006381333931", "format": "ean13"})

    text: str = Field(description="The decoded text.")
    format: str = Field(description="Symbology, named as in barcode/generate (e.g. ean13, qr_code).")


class BarcodeReadResult(ApiModel):
    """Every code found (an empty list when none is)."""

    model_config = example({"codes": [{"text": "4006381333931", "format": "ean13"}]})

    codes: list[DecodedCode] = Field(description="In the order found.")
