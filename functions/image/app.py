"""Image function: /v1/image/* (convert, resize, compress, strip and read metadata, favicons, crop, rotate, flip)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from starlette.responses import Response

from fileapi.convert.animation import AnimationOutcome
from fileapi.convert.favicons import FAVICON_PNGS, favicon_set
from fileapi.convert.image import (
    ImageResult,
    compress_image,
    convert_image,
    crop_image,
    flip_image,
    resize_image,
    rotate_image,
)
from fileapi.convert.image_metadata import read_metadata, strip_metadata
from fileapi.models.image import (
    CompressOptions,
    ConvertOptions,
    CropOptions,
    FlipOptions,
    ImageFaviconSetResult,
    ImageReadMetadataResult,
    ResizeOptions,
    RotateOptions,
)
from fileapi.web.app import create_app, lambda_handler
from fileapi.web.conversions import isolated
from fileapi.web.docs import ISOLATED_STATUSES, raw_body
from fileapi.web.io import RawBody
from fileapi.web.metering import MeteredRoute, metered
from fileapi.web.routes import Routes, answers_bytes, json_response

router = APIRouter(route_class=MeteredRoute, dependencies=[Depends(metered)], tags=["Image"])
IMAGE_BODY = raw_body("Image bytes: JPEG, PNG, WebP, AVIF, HEIC/HEIF, GIF, BMP or TIFF (detected from the bytes).")
IMAGE_TYPES = ("image/jpeg", "image/png", "image/webp", "image/avif")
DEFAULTS = (
    "Output: jpeg, png, webp or avif; without a format the input's format is kept when it is one of these, "
    "else PNG. Default quality: JPEG 85, WebP 80, AVIF 60 (PNG is lossless). EXIF orientation is applied first; "
    "no EXIF/XMP is written; the ICC profile is kept. Inputs over 50 megapixels and outputs over 16383 px a side "
    "or 50 megapixels are 413."
)
ANIMATION = (
    " Animated GIF and WebP inputs stay animated (every frame, its duration, the loop count) when the output is "
    "WebP or AVIF, and an animated GIF given no format becomes an animated WebP; to JPEG or PNG the first frame "
    "is written. X-Animation says which. Frames x pixels count together against the 50-megapixel limit."
)
ANIMATION_HEADERS: dict[str, Any] = {
    "X-Animation": {
        "description": "Only for an animated GIF or WebP input: `kept` (every frame, its duration and the loop "
        "count, in an animated WebP or AVIF) or `first-frame` (the output format has no animation).",
        "schema": {"type": "string", "enum": [outcome.value for outcome in AnimationOutcome]},
    },
    "X-Animation-Frames": {
        "description": "Only for an animated input: its number of frames.",
        "schema": {"type": "integer"},
    },
}
# The routes that write an image: each description ends with the output's defaults and what animation becomes.
images = Routes(
    router,
    body=IMAGE_BODY,
    answer=answers_bytes(IMAGE_TYPES, "The image", headers=ANIMATION_HEADERS),
    note=DEFAULTS + ANIMATION,
    statuses=ISOLATED_STATUSES,
)
# The routes that read an image.
readers = Routes(router, body=IMAGE_BODY, statuses=ISOLATED_STATUSES)


def _image(result: ImageResult) -> Response:
    return Response(result.data, media_type=result.media_type, headers=result.animation_headers() or None)


@images.post("/v1/image/convert", "Convert an image to another format")
async def convert(body: RawBody, options: Annotated[ConvertOptions, Query()]) -> Response:
    """Alpha is flattened onto white for JPEG."""
    return _image(await isolated(convert_image, body, **options.model_dump()))


@images.post("/v1/image/resize", "Resize an image")
async def resize(body: RawBody, options: Annotated[ResizeOptions, Query()]) -> Response:
    """width and/or height in pixels (one of them keeps the aspect ratio). fit (default cover), as in sharp:
    cover, contain and fill give exactly width x height (cover crops centrally; contain letterboxes, transparent
    where the format has alpha, else white; fill stretches); inside fits within and outside covers, both keeping
    the aspect ratio. Lanczos resampling; JPEG inputs are first reduced by the decoder (DCT scaling) when
    shrinking 2x or more. Upscaling is allowed within the output bounds."""
    return _image(await isolated(resize_image, body, **options.model_dump()))


@images.post("/v1/image/compress", "Compress an image")
async def compress(body: RawBody, options: Annotated[CompressOptions, Query()]) -> Response:
    """Re-encode at `quality` (required). PNG output is lossless (optimised) unless `colors` (2-256) asks for
    palette quantisation. When the result in the input's own format is not smaller, the input is returned
    unchanged."""
    return _image(await isolated(compress_image, body, **options.model_dump()))


@readers.post(
    "/v1/image/strip-metadata",
    "Remove EXIF, IPTC, XMP and GPS without re-encoding",
    answers_bytes(IMAGE_TYPES, "The image"),
    body=raw_body("JPEG, PNG or WebP bytes."),
)
async def strip(body: RawBody) -> Response:
    """JPEG: JFIF, ICC and Adobe segments kept, every other APPn and comments dropped, scan data byte-identical
    (a non-1 EXIF orientation is kept as a minimal EXIF so the image displays the same). PNG: eXIf, tEXt, zTXt,
    iTXt and tIME chunks dropped. WebP: EXIF and XMP chunks dropped, VP8X flags cleared. Other formats (AVIF,
    HEIC, GIF, BMP, TIFF) are 400 unsupported_format: convert them first."""
    data, media_type = await isolated(strip_metadata, body)
    return Response(data, media_type=media_type)


@readers.post("/v1/image/read-metadata", "Read an image's metadata", ImageReadMetadataResult)
async def read(body: RawBody) -> Response:
    """width and height as displayed (after orientation); takenAt from DateTimeOriginal (ISO 8601, with the
    offset when the file has it); camera make, model and lens; gps latitude and longitude in signed decimal
    degrees (south and west negative) and altitude in metres (below sea level negative); exif: the other tags by
    their standard names (rationals as numbers, short byte values as Base64, long ones omitted)."""
    metadata = await isolated(read_metadata, body)
    return json_response(ImageReadMetadataResult.model_validate(metadata.as_json()))


@readers.post(
    "/v1/image/favicon-set",
    "Make a favicon set",
    ImageFaviconSetResult,
    description=(
        "ico: favicon.ico with 16, 32 and 48 px (Base64); pngs: "
        + ", ".join(f"`{name}` ({size} px)" for name, size in FAVICON_PNGS.items())
        + " (Base64); manifest: a web manifest snippet (JSON text) listing the android-chrome icons. "
        "A non-square image is centred on a transparent square."
    ),
)
async def favicons(body: RawBody) -> Response:
    return json_response(ImageFaviconSetResult.model_validate(await isolated(favicon_set, body)))


@images.post("/v1/image/crop", "Crop an image")
async def crop(body: RawBody, options: Annotated[CropOptions, Query()]) -> Response:
    """The rectangle x, y, width, height in displayed pixels must lie inside the image."""
    return _image(await isolated(crop_image, body, **options.model_dump()))


@images.post("/v1/image/rotate", "Rotate an image clockwise")
async def rotate(body: RawBody, options: Annotated[RotateOptions, Query()]) -> Response:
    """degrees 90, 180 or 270, clockwise."""
    return _image(await isolated(rotate_image, body, **options.model_dump()))


@images.post("/v1/image/flip", "Flip an image")
async def flip(body: RawBody, options: Annotated[FlipOptions, Query()]) -> Response:
    """horizontal mirrors left and right; vertical mirrors top and bottom."""
    return _image(await isolated(flip_image, body, **options.model_dump()))


# What its conversion workers import before their first job.
WORKER_MODULES = (
    "fileapi.convert.image",
    "fileapi.convert.favicons",
    "fileapi.convert.image_metadata",
    "PIL.Image",
    "PIL.ImageOps",
    "pillow_heif",
)
app = create_app(router, title="Image", worker_modules=WORKER_MODULES)
handler = lambda_handler(app)
