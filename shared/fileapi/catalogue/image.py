"""The image conversions (the Image function)."""

from __future__ import annotations

import os
from typing import Any

from fileapi.catalogue.declaration import IMAGE, Conversion, Reads, Takes, gives_file, gives_json, gives_json_files
from fileapi.catalogue.outcome import Outcome, OutFile, extension, file_at
from fileapi.convert.animation import AnimationOutcome
from fileapi.convert.favicons import FAVICON_PNGS, favicon_set
from fileapi.convert.image import compress_image, convert_image, crop_image, flip_image, resize_image, rotate_image
from fileapi.convert.image_io import ImageFormat
from fileapi.convert.image_metadata import read_metadata, strip_metadata
from fileapi.convert.ocr_image import image_ocr
from fileapi.models.image import (
    CompressOptions,
    ConvertOptions,
    CropOptions,
    FlipOptions,
    ImageFaviconSetResult,
    ImageOcrOptions,
    ImageOcrResult,
    ImageReadMetadataResult,
    ResizeOptions,
    RotateOptions,
)

FAMILY = "image"
TAGS = ("Image",)
ONE_IMAGE = Takes(
    Reads.FILE,
    IMAGE,
    doc="Image bytes: JPEG, PNG, WebP, AVIF, HEIC/HEIF, JPEG XL, GIF, BMP or TIFF (detected from the bytes).",
)
IMAGE_TYPES = tuple(fmt.media_type for fmt in ImageFormat)
DEFAULTS = (
    "Output: jpeg, png, webp, avif or jxl; without a format the input's format is kept when it is one of these, "
    "else PNG. Default quality: JPEG 85, WebP 80, AVIF 60, JPEG XL 90 (PNG is lossless); targetScore instead "
    "chooses the lowest quality whose SSIMULACRA2 score reaches it (X-Quality-Score, X-Encoder-Quality). EXIF "
    "orientation is applied first; no EXIF/XMP is written; the ICC profile is kept (JPEG XL: converted to sRGB "
    "through it). Inputs over 50 megapixels and outputs over 16383 px a side or 50 megapixels are 413."
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
QUALITY_HEADERS: dict[str, Any] = {
    "X-Quality-Score": {
        "description": "Only with targetScore: the SSIMULACRA2 score of the answer against the input as displayed "
        "(2 decimals; at least the target).",
        "schema": {"type": "number"},
    },
    "X-Encoder-Quality": {
        "description": "Only with targetScore: the encoder quality (1-100) that targetScore chose: a whole "
        "number, but for JPEG XL a multiple of 0.25 (libjxl's quality is fractional; `quality` takes whole ones).",
        "schema": {"type": "number"},
    },
}
AN_IMAGE = gives_file(IMAGE_TYPES, "The image", headers=ANIMATION_HEADERS | QUALITY_HEADERS)
# What the family's conversion workers import before their first job.
WORKER_MODULES = (
    "fileapi.convert.image",
    "fileapi.convert.favicons",
    "fileapi.convert.image_metadata",
    "PIL.Image",
    "PIL.ImageOps",
    "pillow_heif",
    "pillow_jxl",
)


def writes_image(summary: str) -> str:
    """The description of a conversion that writes an image: `summary`, then the output's defaults and what
    animation becomes."""
    return f"{summary} {DEFAULTS}{ANIMATION}"


def convert_files(inputs: list[str], folder: str, *, to: ImageFormat, **options: Any) -> Outcome:
    """Convert over a file (fileapi.convert.image_files: a still PNG or JPEG to WebP or JPEG through libvips, in
    strips; anything else through Pillow reading it on demand), so memory is bounded by the pixel limits, not the
    file; the answer's headers (X-Animation, X-Quality-Score, ...) as the outcome's."""
    from fileapi.convert.image_files import convert_image_file  # libvips's path: operations only

    path = os.path.join(folder, "converted")
    headers = convert_image_file(inputs[0], path, to=to, **options)
    return Outcome((OutFile(to.media_type, "result" + extension(to.media_type), path=path),), headers=headers)


def favicon_outcome(result: Any) -> Outcome:
    """The favicon set: favicon.ico at `ico`, each PNG at `pngs.<name>`, the manifest as details."""
    files = [file_at(("ico",), result.ico, "image/vnd.microsoft.icon")]
    files += [file_at(("pngs", name), data, "image/png") for name, data in result.pngs.items()]
    return Outcome(tuple(files), {"manifest": result.manifest})


def metadata_outcome(result: Any) -> Outcome:
    """The metadata as the answer's JSON (wire names)."""
    return Outcome(details=result.as_json())


CONVERSIONS = (
    Conversion(
        path="/v1/image/convert",
        family=FAMILY,
        summary="Convert an image to another format",
        description=writes_image(
            "Alpha is flattened onto white for JPEG. jpegTranscode=true with to=jxl and a JPEG body recompresses the "
            "JPEG losslessly (about 20% smaller; a JPEG XL decoder such as djxl gives the JPEG back byte for byte)."
        ),
        takes=ONE_IMAGE,
        options=ConvertOptions,
        gives=AN_IMAGE,
        convert=convert_image,
        convert_files=convert_files,
        tags=TAGS,
        example={"to": "webp"},
    ),
    Conversion(
        path="/v1/image/resize",
        family=FAMILY,
        summary="Resize an image",
        description=writes_image(
            "width and/or height in pixels (one of them keeps the aspect ratio). fit (default cover), as in sharp: "
            "cover, contain and fill give exactly width x height (cover crops centrally; contain letterboxes, "
            "transparent where the format has alpha, else white; fill stretches); inside fits within and outside "
            "covers, both keeping the aspect ratio. Lanczos resampling; JPEG inputs are first reduced by the decoder "
            "(DCT scaling) when shrinking 2x or more. Upscaling is allowed within the output bounds."
        ),
        takes=ONE_IMAGE,
        options=ResizeOptions,
        gives=AN_IMAGE,
        convert=resize_image,
        tags=TAGS,
        example={"width": "40"},
    ),
    Conversion(
        path="/v1/image/compress",
        family=FAMILY,
        summary="Compress an image",
        description=writes_image(
            "Re-encode at `quality` or to `targetScore` (one of them required). PNG output is lossless (optimised) "
            "unless `colors` (2-256) asks for palette quantisation. When the result in the input's own format is not "
            "smaller, the input is returned unchanged."
        ),
        takes=ONE_IMAGE,
        options=CompressOptions,
        gives=AN_IMAGE,
        convert=compress_image,
        tags=TAGS,
        example={"quality": "60"},
    ),
    Conversion(
        path="/v1/image/strip-metadata",
        family=FAMILY,
        summary="Remove EXIF, IPTC, XMP and GPS without re-encoding",
        description="JPEG: JFIF, ICC and Adobe segments kept, every other APPn and comments dropped, those between a "
        "progressive JPEG's scans too, scan data byte-identical (a non-1 EXIF orientation is kept as a minimal EXIF "
        "so the image displays the same); what follows the image's end (an MPO's other images, with their own "
        "EXIF, whose index is an APP2 segment) is dropped. PNG: "
        "eXIf, tEXt, zTXt, iTXt and tIME chunks dropped. WebP: EXIF and XMP chunks dropped, VP8X flags cleared. "
        "Other formats (AVIF, HEIC, GIF, BMP, TIFF) are 400 unsupported_format: convert them first.",
        takes=Takes(Reads.FILE, IMAGE, doc="JPEG, PNG or WebP bytes."),
        gives=gives_file(("image/jpeg", "image/png", "image/webp"), "The image"),
        convert=strip_metadata,
        tags=TAGS,
    ),
    Conversion(
        path="/v1/image/read-metadata",
        family=FAMILY,
        summary="Read an image's metadata",
        description="width and height as displayed (after orientation); takenAt from DateTimeOriginal (ISO 8601, "
        "with the offset when the file has it); camera make, model and lens; gps latitude and longitude in signed "
        "decimal degrees (south and west negative) and altitude in metres (below sea level negative); exif: the other "
        "tags by their standard names (rationals as numbers, short byte values as Base64, long ones omitted).",
        takes=ONE_IMAGE,
        gives=gives_json(ImageReadMetadataResult),
        convert=read_metadata,
        unpack=metadata_outcome,
        tags=TAGS,
    ),
    Conversion(
        path="/v1/image/favicon-set",
        family=FAMILY,
        summary="Make a favicon set",
        description="ico: favicon.ico with 16, 32 and 48 px (Base64); pngs: "
        + ", ".join(f"`{name}` ({size} px)" for name, size in FAVICON_PNGS.items())
        + " (Base64); manifest: a web manifest snippet (JSON text) listing the android-chrome icons. "
        "A non-square image is centred on a transparent square.",
        takes=ONE_IMAGE,
        gives=gives_json_files(ImageFaviconSetResult, IMAGE),
        convert=favicon_set,
        unpack=favicon_outcome,
        tags=TAGS,
    ),
    Conversion(
        path="/v1/image/crop",
        family=FAMILY,
        summary="Crop an image",
        description=writes_image("The rectangle x, y, width, height in displayed pixels must lie inside the image."),
        takes=ONE_IMAGE,
        options=CropOptions,
        gives=AN_IMAGE,
        convert=crop_image,
        tags=TAGS,
        example={"x": "0", "y": "0", "width": "8", "height": "8"},
    ),
    Conversion(
        path="/v1/image/rotate",
        family=FAMILY,
        summary="Rotate an image clockwise",
        description=writes_image("degrees 90, 180 or 270, clockwise."),
        takes=ONE_IMAGE,
        options=RotateOptions,
        gives=AN_IMAGE,
        convert=rotate_image,
        tags=TAGS,
        example={"degrees": "90"},
    ),
    Conversion(
        path="/v1/image/flip",
        family=FAMILY,
        summary="Flip an image",
        description=writes_image("horizontal mirrors left and right; vertical mirrors top and bottom."),
        takes=ONE_IMAGE,
        options=FlipOptions,
        gives=AN_IMAGE,
        convert=flip_image,
        tags=TAGS,
        example={"direction": "horizontal"},
    ),
    Conversion(
        path="/v1/image/ocr",
        family=FAMILY,
        summary="Read the text of a photo or a scan (OCR)",
        description="Recognises the text of a photo or a scan with Tesseract. Returns the text, and one block per "
        "line with its box in pixels of the image as displayed (EXIF orientation applied) and its mean word "
        "confidence (0-100). languages: '+'-joined Tesseract codes of the installed languages (eng). At most 40 "
        "megapixels, read from the header before decoding (413).",
        takes=ONE_IMAGE,
        options=ImageOcrOptions,
        gives=gives_json(ImageOcrResult),
        convert=image_ocr,
        tags=TAGS,
    ),
)
