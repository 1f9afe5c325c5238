"""Each endpoint's options model and its converter's keyword arguments are one list: the routes call
`converter(body, **options.model_dump())` (a JSON body's model: `converter(**options.model_dump())`), so a
field the converter does not take, or a keyword it needs that the model lacks, fails here before any request
does."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel

from fileapi.convert.barcodes import generate_barcode
from fileapi.convert.csv_json import csv_to_json, json_to_csv
from fileapi.convert.encoding import encode_base64
from fileapi.convert.image import compress_image, convert_image, crop_image, flip_image, resize_image, rotate_image
from fileapi.convert.pdf import render_pages
from fileapi.convert.pdf_edit import compress_pdf, protect_pdf, watermark_pdf
from fileapi.convert.pdf_from_images import images_to_pdf
from fileapi.convert.pdf_metadata import set_pdf_metadata
from fileapi.convert.pdf_pages import arrange_pages
from fileapi.convert.pdf_redact import redact_pdf
from fileapi.convert.pdf_unlock import unlock_pdf
from fileapi.convert.qr import generate_qr
from fileapi.convert.render import svg_to_png
from fileapi.convert.textdiff import diff_texts
from fileapi.models import codes, data, image, pdf, render, text

PAIRS: list[tuple[type[BaseModel], Callable[..., Any]]] = [
    (image.ConvertOptions, convert_image),
    (image.ResizeOptions, resize_image),
    (image.CompressOptions, compress_image),
    (image.CropOptions, crop_image),
    (image.RotateOptions, rotate_image),
    (image.FlipOptions, flip_image),
    (pdf.RenderOptions, render_pages),
    (pdf.WatermarkOptions, watermark_pdf),
    (pdf.CompressOptions, compress_pdf),
    (pdf.ProtectOptions, protect_pdf),
    (pdf.UnlockOptions, unlock_pdf),
    (pdf.MetadataOptions, set_pdf_metadata),
    (pdf.PagesOptions, arrange_pages),
    (pdf.FromImagesOptions, images_to_pdf),
    (pdf.RedactOptions, redact_pdf),
    (data.Base64EncodeOptions, encode_base64),
    (data.CsvToJsonOptions, csv_to_json),
    (data.JsonToCsvOptions, json_to_csv),
    (render.SvgToPngOptions, svg_to_png),
    (codes.QrGenerateOptions, generate_qr),
    (codes.BarcodeGenerateOptions, generate_barcode),
    (text.DiffRequest, diff_texts),
]


@pytest.mark.parametrize(("model", "converter"), PAIRS, ids=[model.__qualname__ for model, _ in PAIRS])
def test_options_are_the_converter_s_keywords(model: type[BaseModel], converter: Callable[..., Any]) -> None:
    parameters = inspect.signature(converter).parameters.values()
    by_keyword = {parameter.name for parameter in parameters if parameter.kind in _BY_KEYWORD}
    required = {
        parameter.name
        for parameter in parameters
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY and parameter.default is inspect.Parameter.empty
    }
    passed = {name for name, field in model.model_fields.items() if not field.exclude}  # what model_dump() gives
    assert passed <= by_keyword, "fields the converter does not take"
    assert required <= passed, "keywords the converter needs that the model lacks"


_BY_KEYWORD = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
