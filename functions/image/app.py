"""Image function: /v1/image/* (convert, resize, compress, strip and read metadata, favicons, crop, rotate, flip)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from starlette.responses import JSONResponse, Response

from fileapi.convert.animation import AnimationOutcome
from fileapi.convert.image import (
    FAVICON_PNGS,
    Fit,
    FlipDirection,
    ImageResult,
    Rotation,
    compress_image,
    convert_image,
    crop_image,
    favicon_set,
    flip_image,
    resize_image,
    rotate_image,
)
from fileapi.convert.image_io import ImageFormat
from fileapi.convert.image_metadata import read_metadata, strip_metadata
from fileapi.web.app import create_app, lambda_handler
from fileapi.web.docs import (
    INTEGER,
    METERED_STATUSES,
    METERING_HEADERS,
    NUMBER,
    STRING,
    binary_body,
    error_responses,
    object_schema,
)
from fileapi.web.io import RawBody
from fileapi.web.metering import MeteredRoute, metered

router = APIRouter(route_class=MeteredRoute, dependencies=[Depends(metered)], tags=["Image"])
ERRORS = error_responses(METERED_STATUSES)
IMAGE_TYPES = ("image/jpeg", "image/png", "image/webp", "image/avif", "image/heic", "application/octet-stream")
IMAGE_BODY = binary_body(
    IMAGE_TYPES, "Image bytes: JPEG, PNG, WebP, AVIF, HEIC/HEIF, GIF, BMP or TIFF (detected from the bytes)."
)
IMAGE_OUT: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The image. Content-Type gives its format.",
        "content": {media: {"schema": {"type": "string", "format": "binary"}} for media in IMAGE_TYPES[:4]},
    }
}
DEFAULTS = (
    "Output: jpeg, png, webp or avif; without a format the input's format is kept when it is one of these, "
    "else PNG. Default quality: JPEG 85, WebP 80, AVIF 60 (PNG is lossless). EXIF orientation is applied first; "
    "no EXIF/XMP is written; the ICC profile is kept. Inputs over 50 megapixels and outputs over 16383 px a side "
    "or 50 megapixels are 413."
)

Quality = Annotated[int | None, Query(ge=1, le=100, description="1-100; default per format (see description).")]
OutputFormat = Annotated[ImageFormat | None, Query(description="Output format (default: keep the input's).")]


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
ANIMATION = (
    " Animated GIF and WebP inputs stay animated (every frame, its duration, the loop count) when the output is "
    "WebP or AVIF, and an animated GIF given no format becomes an animated WebP; to JPEG or PNG the first frame "
    "is written. X-Animation says which. Frames x pixels count together against the 50-megapixel limit."
)


def _image(result: ImageResult) -> Response:
    headers = None
    if result.animation is not None:
        headers = {"X-Animation": result.animation.outcome.value, "X-Animation-Frames": str(result.animation.frames)}
    return Response(result.data, media_type=result.media_type, headers=headers)


def _responses(
    ok: dict[int | str, dict[str, Any]] = IMAGE_OUT, *, animated: bool = False
) -> dict[int | str, dict[str, Any]]:
    headers = {**METERING_HEADERS, **ANIMATION_HEADERS} if animated else METERING_HEADERS
    return {200: {**ok[200], "headers": headers}, **ERRORS}


@router.post(
    "/v1/image/convert",
    summary="Convert an image to another format",
    description=f"Alpha is flattened onto white for JPEG. {DEFAULTS}{ANIMATION}",
    openapi_extra=IMAGE_BODY,
    responses=_responses(animated=True),
)
def convert(
    body: RawBody,
    to: Annotated[ImageFormat, Query(description="Target format.")],
    quality: Quality = None,
) -> Response:
    return _image(convert_image(body, to=to, quality=quality))


@router.post(
    "/v1/image/resize",
    summary="Resize an image",
    description=(
        "width and/or height in pixels (one of them keeps the aspect ratio). fit (default cover), as in sharp: "
        "cover, contain and fill give exactly width x height (cover crops centrally; contain letterboxes, "
        "transparent where the format has alpha, else white; fill stretches); inside fits within and outside "
        "covers, both keeping the aspect ratio. Lanczos resampling; JPEG inputs are first reduced by the "
        f"decoder (DCT scaling) when shrinking 2x or more. Upscaling is allowed within the output bounds. {DEFAULTS}"
        f"{ANIMATION}"
    ),
    openapi_extra=IMAGE_BODY,
    responses=_responses(animated=True),
)
def resize(
    body: RawBody,
    width: Annotated[int | None, Query(ge=1, description="Target width in pixels.")] = None,
    height: Annotated[int | None, Query(ge=1, description="Target height in pixels.")] = None,
    fit: Annotated[Fit, Query(description="How to fit width x height.")] = Fit.COVER,
    format: OutputFormat = None,
    quality: Quality = None,
) -> Response:
    return _image(resize_image(body, width=width, height=height, fit=fit, fmt=format, quality=quality))


@router.post(
    "/v1/image/compress",
    summary="Compress an image",
    description=(
        "Re-encode at `quality` (required). PNG output is lossless (optimised) unless `colors` (2-256) asks for "
        "palette quantisation. When the result in the input's own format is not smaller, the input is returned "
        f"unchanged. {DEFAULTS}{ANIMATION}"
    ),
    openapi_extra=IMAGE_BODY,
    responses=_responses(animated=True),
)
def compress(
    body: RawBody,
    quality: Annotated[int, Query(ge=1, le=100, description="1-100.")],
    format: OutputFormat = None,
    colors: Annotated[int | None, Query(ge=2, le=256, description="PNG only: quantise to this many colours.")] = None,
) -> Response:
    return _image(compress_image(body, quality=quality, fmt=format, palette_colors=colors))


@router.post(
    "/v1/image/strip-metadata",
    summary="Remove EXIF, IPTC, XMP and GPS without re-encoding",
    description=(
        "JPEG: JFIF, ICC and Adobe segments kept, every other APPn and comments dropped, scan data byte-identical "
        "(a non-1 EXIF orientation is kept as a minimal EXIF so the image displays the same). PNG: eXIf, tEXt, "
        "zTXt, iTXt and tIME chunks dropped. WebP: EXIF and XMP chunks dropped, VP8X flags cleared. Other "
        "formats (AVIF, HEIC, GIF, BMP, TIFF) are 400 unsupported_format: convert them first."
    ),
    openapi_extra=binary_body(IMAGE_TYPES, "JPEG, PNG or WebP bytes."),
    responses=_responses(),
)
def strip(body: RawBody) -> Response:
    data, media_type = strip_metadata(body)
    return Response(data, media_type=media_type)


@router.post(
    "/v1/image/read-metadata",
    summary="Read an image's metadata",
    description=(
        "width and height as displayed (after orientation); takenAt from DateTimeOriginal (ISO 8601, with the "
        "offset when the file has it); camera make, model and lens; gps latitude and longitude in signed decimal "
        "degrees (south and west negative) and altitude in metres (below sea level negative); exif: the other "
        "tags by their standard names (rationals as numbers, short byte values as Base64, long ones omitted)."
    ),
    openapi_extra=IMAGE_BODY,
    responses=_responses(
        {
            200: {
                "description": "ImageMetadata",
                "content": {
                    "application/json": {
                        "schema": object_schema(
                            {
                                "width": INTEGER,
                                "height": INTEGER,
                                "takenAt": {"type": "string", "description": "ISO 8601, with offset when known."},
                                "camera": {
                                    "type": "object",
                                    "additionalProperties": STRING,
                                    "description": "make, model, lens when present.",
                                },
                                "gps": object_schema(
                                    {"latitude": NUMBER, "longitude": NUMBER, "altitude": NUMBER},
                                    optional=["altitude"],
                                ),
                                "exif": {"type": "object", "description": "Other EXIF tags by name."},
                            },
                            optional=["takenAt", "camera", "gps"],
                        ),
                        "example": {
                            "width": 4000,
                            "height": 3000,
                            "takenAt": "2024-05-01T12:30:00+02:00",
                            "camera": {"make": "NIKON", "model": "COOLPIX P6000"},
                            "gps": {"latitude": 43.4674, "longitude": 11.8851, "altitude": 112.0},
                            "exif": {"ExposureTime": 0.004, "FNumber": 2.8},
                        },
                    }
                },
            }
        }
    ),
)
def read(body: RawBody) -> Response:
    return JSONResponse(read_metadata(body).as_json())


@router.post(
    "/v1/image/favicon-set",
    summary="Make a favicon set",
    description=(
        "ico: favicon.ico with 16, 32 and 48 px (Base64); pngs: "
        + ", ".join(f"`{name}` ({size} px)" for name, size in FAVICON_PNGS.items())
        + " (Base64); manifest: a web manifest snippet (JSON text) listing the android-chrome icons. "
        "A non-square image is centred on a transparent square."
    ),
    openapi_extra=IMAGE_BODY,
    responses=_responses(
        {
            200: {
                "description": "FaviconSetResult",
                "content": {
                    "application/json": {
                        "schema": {
                            "type": "object",
                            "required": ["ico", "pngs", "manifest"],
                            "properties": {
                                "ico": {"type": "string", "format": "byte"},
                                "pngs": {
                                    "type": "object",
                                    "properties": {name: {"type": "string", "format": "byte"} for name in FAVICON_PNGS},
                                },
                                "manifest": {"type": "string"},
                            },
                        },
                        "example": {
                            "ico": "AAABAAMAEBAAAAAAIADoBAAANgAAACAg...",
                            "pngs": {name: "iVBORw0KGgoAAAANSUhEUgAA..." for name in FAVICON_PNGS},
                            "manifest": '{\n  "icons": [\n    {\n      "src": "/android-chrome-192x192.png", ...',
                        },
                    }
                },
            }
        }
    ),
)
def favicons(body: RawBody) -> Response:
    return JSONResponse(asdict(favicon_set(body)))


@router.post(
    "/v1/image/crop",
    summary="Crop an image",
    description=(
        f"The rectangle x, y, width, height in displayed pixels must lie inside the image. {DEFAULTS}{ANIMATION}"
    ),
    openapi_extra=IMAGE_BODY,
    responses=_responses(animated=True),
)
def crop(
    body: RawBody,
    x: Annotated[int, Query(ge=0, description="Left edge, pixels.")],
    y: Annotated[int, Query(ge=0, description="Top edge, pixels.")],
    width: Annotated[int, Query(ge=1, description="Width, pixels.")],
    height: Annotated[int, Query(ge=1, description="Height, pixels.")],
    format: OutputFormat = None,
    quality: Quality = None,
) -> Response:
    return _image(crop_image(body, x=x, y=y, width=width, height=height, fmt=format, quality=quality))


@router.post(
    "/v1/image/rotate",
    summary="Rotate an image clockwise",
    description=f"degrees 90, 180 or 270, clockwise. {DEFAULTS}{ANIMATION}",
    openapi_extra=IMAGE_BODY,
    responses=_responses(animated=True),
)
def rotate(
    body: RawBody,
    degrees: Annotated[Rotation, Query(description="Clockwise rotation in degrees.")],
    format: OutputFormat = None,
) -> Response:
    return _image(rotate_image(body, degrees=int(degrees), fmt=format))


@router.post(
    "/v1/image/flip",
    summary="Flip an image",
    description=f"horizontal mirrors left and right; vertical mirrors top and bottom. {DEFAULTS}{ANIMATION}",
    openapi_extra=IMAGE_BODY,
    responses=_responses(animated=True),
)
def flip(
    body: RawBody,
    direction: Annotated[FlipDirection, Query(description="horizontal or vertical.")],
    format: OutputFormat = None,
) -> Response:
    return _image(flip_image(body, direction=direction.value, fmt=format))


app = create_app(router, title="Image")
handler = lambda_handler(app)
