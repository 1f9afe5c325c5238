"""Text function: /v1/file/* (hash, detect), /v1/text/* (word count, diff, Markdown) and /v1/color/convert."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import JSONResponse, Response

from fileapi.convert.color import convert_color
from fileapi.convert.detect import detect_type
from fileapi.convert.hashing import HashAlgorithm, hash_bytes
from fileapi.convert.markdown_html import markdown_to_html
from fileapi.convert.textdiff import MAX_CONTEXT, diff_texts
from fileapi.convert.wordcount import WORDS_PER_MINUTE, count_text
from fileapi.web.app import create_app, lambda_handler
from fileapi.web.docs import (
    INTEGER,
    METERED_STATUSES,
    STRING,
    error_responses,
    object_schema,
    raw_body,
    success_response,
)
from fileapi.web.io import RawBody
from fileapi.web.metering import MeteredRoute, metered

router = APIRouter(route_class=MeteredRoute, dependencies=[Depends(metered)])
ERRORS = error_responses(METERED_STATUSES)

HASH_SCHEMA = {
    "type": "object",
    "required": ["algorithm", "hex", "base64", "bytes"],
    "properties": {
        "algorithm": {"type": "string", "enum": [algorithm.value for algorithm in HashAlgorithm]},
        "hex": {"type": "string", "description": "Digest in lower-case hexadecimal."},
        "base64": {"type": "string", "description": "The same digest in Base64."},
        "bytes": {"type": "integer", "description": "Length of the input in bytes."},
    },
}
DETECT_SCHEMA = {
    "type": "object",
    "required": ["mime", "extension", "description"],
    "properties": {
        "mime": {"type": "string"},
        "extension": {"type": "string", "description": "Usual file extension, without the dot."},
        "description": {"type": "string"},
    },
}
COUNTS_SCHEMA = {
    "type": "object",
    "properties": {
        "words": {"type": "integer"},
        "characters": {"type": "integer", "description": "User-perceived characters (grapheme clusters)."},
        "charactersNoSpaces": {"type": "integer"},
        "sentences": {"type": "integer"},
        "paragraphs": {"type": "integer"},
        "lines": {"type": "integer"},
        "readingTimeMinutes": {"type": "number", "description": f"words / {WORDS_PER_MINUTE}, two decimals."},
    },
}
COLOR_SCHEMA = {
    "type": "object",
    "required": ["hex", "rgb", "hsl", "hsv", "cmyk"],
    "properties": {
        "hex": {"type": "string", "description": "#rrggbb, or #rrggbbaa when the input had an alpha."},
        "rgb": {"type": "object", "description": "r, g, b integers 0-255 (+ a 0-1 when given)."},
        "hsl": {"type": "object", "description": "h degrees, s and l percent, one decimal (+ a)."},
        "hsv": {"type": "object", "description": "h degrees, s and v percent, one decimal (+ a)."},
        "cmyk": {"type": "object", "description": "c, m, y, k percent, one decimal."},
    },
}


class DiffRequest(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"a": "one\ntwo\n", "b": "one\nthree\n", "context": 3}]})

    a: str = Field(description="The old text.")
    b: str = Field(description="The new text.")
    context: int = Field(default=3, ge=0, le=MAX_CONTEXT, description="Unchanged lines around each change.")
    labelA: str = Field(default="a", max_length=200, description="Name on the `---` line.")
    labelB: str = Field(default="b", max_length=200, description="Name on the `+++` line.")


class ColorRequest(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"color": "rgb(255 136 0 / 50%)"}]})

    color: str = Field(max_length=200, description="A CSS colour, e.g. `#ff8800`, `rgb(255 136 0 / 50%)`, `teal`.")


@router.post(
    "/v1/file/hash",
    summary="Hash bytes",
    tags=["File"],
    description="Any bytes in; the digest (md5, sha1, sha256 (default), sha384 or sha512) in hex and Base64.",
    openapi_extra=raw_body("The bytes to hash (may be empty; any Content-Type)."),
    responses={
        **success_response(
            "application/json",
            "Digest",
            schema=HASH_SCHEMA,
            example={
                "algorithm": "sha256",
                "hex": "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
                "base64": "LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=",
                "bytes": 5,
            },
        ),
        **ERRORS,
    },
)
def file_hash(
    body: RawBody,
    algorithm: Annotated[HashAlgorithm, Query(description="Digest algorithm.")] = HashAlgorithm.SHA256,
) -> Response:
    return JSONResponse(asdict(hash_bytes(body, algorithm=algorithm)))


@router.post(
    "/v1/file/detect",
    summary="Detect the file type from magic bytes",
    tags=["File"],
    description=(
        "Any bytes in; the type from the content, never from a name: containers told apart (DOCX/XLSX/PPTX, "
        "ODF, EPUB inside ZIP; WebP/WAV/AVI inside RIFF; AVIF/HEIC/MP4/MOV by brand), SVG, HTML, XHTML, XML and "
        "JSON by their text, other UTF-8 text as text/plain, anything unknown as application/octet-stream. "
        "A bare JSON scalar (e.g. `0`) is text/plain. An empty body is 400."
    ),
    openapi_extra=raw_body("The file's bytes (any Content-Type: the type is read from the bytes)."),
    responses={
        **success_response(
            "application/json",
            "Type",
            schema=DETECT_SCHEMA,
            example={"mime": "image/png", "extension": "png", "description": "PNG image"},
        ),
        **ERRORS,
    },
)
def file_detect(body: RawBody) -> Response:
    return JSONResponse(asdict(detect_type(body)))


@router.post(
    "/v1/text/word-count",
    summary="Count words, characters, sentences and paragraphs",
    tags=["Text"],
    description=(
        "UTF-8 text in. Words are runs of letters and digits (inner ' - . allowed); each CJK ideograph or kana "
        "counts as a word. Characters are grapheme clusters. Sentences end in . ! ? … (or full-width forms); "
        "paragraphs are separated by blank lines. Reading time is words / "
        f"{WORDS_PER_MINUTE} per minute. Invalid UTF-8 is 400."
    ),
    openapi_extra=raw_body("UTF-8 text.", text_types=("text/plain",), example="Hello world. How are you?"),
    responses={
        **success_response(
            "application/json",
            "Counts",
            schema=COUNTS_SCHEMA,
            example={
                "words": 4,
                "characters": 20,
                "charactersNoSpaces": 17,
                "sentences": 2,
                "paragraphs": 1,
                "lines": 1,
                "readingTimeMinutes": 0.02,
            },
        ),
        **ERRORS,
    },
)
def word_count(body: RawBody) -> Response:
    return JSONResponse(asdict(count_text(body)))


@router.post(
    "/v1/text/diff",
    summary="Diff two texts",
    tags=["Text"],
    description=(
        "JSON {a, b, context?, labelA?, labelB?} in; a unified diff (as `diff -u` writes it; `patch` applies it), "
        "its hunks with 1-based line numbers and typed lines, counts of added and removed lines, and whether the "
        "texts are identical. Lines end at LF; a last line without LF is marked `\\ No newline at end of file`."
    ),
    responses={
        **success_response(
            "application/json",
            "Diff",
            schema=object_schema(
                {
                    "identical": {"type": "boolean"},
                    "added": INTEGER,
                    "removed": INTEGER,
                    "unified": STRING,
                    "hunks": {
                        "type": "array",
                        "items": object_schema(
                            {
                                "oldStart": INTEGER,
                                "oldLines": INTEGER,
                                "newStart": INTEGER,
                                "newLines": INTEGER,
                                "lines": {
                                    "type": "array",
                                    "items": object_schema(
                                        {
                                            "type": {"type": "string", "enum": ["context", "added", "removed"]},
                                            "text": STRING,
                                        }
                                    ),
                                },
                            }
                        ),
                    },
                }
            ),
            example={
                "identical": False,
                "added": 1,
                "removed": 1,
                "unified": "--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n",
                "hunks": [
                    {
                        "oldStart": 1,
                        "oldLines": 1,
                        "newStart": 1,
                        "newLines": 1,
                        "lines": [{"type": "removed", "text": "old"}, {"type": "added", "text": "new"}],
                    }
                ],
            },
        ),
        **ERRORS,
    },
)
def text_diff(request: DiffRequest) -> Response:
    result = diff_texts(request.a, request.b, context=request.context, label_a=request.labelA, label_b=request.labelB)
    return JSONResponse(asdict(result))


@router.post(
    "/v1/text/markdown-to-html",
    summary="Render Markdown as HTML",
    tags=["Text"],
    description=(
        "UTF-8 Markdown in (CommonMark with tables, strikethrough, task lists and autolinks); an HTML fragment "
        "out. Raw HTML in the input is escaped unless `allowHtml=true` (then it passes through unchanged: only "
        "for trusted input). javascript:, vbscript:, file: and non-image data: links are never rendered as links. "
        "At most 2,000,000 bytes of Markdown (413 too_large), which keeps the worst input well inside the deadline."
    ),
    openapi_extra=raw_body("Markdown text.", text_types=("text/markdown", "text/plain"), example="# Title\n"),
    responses={
        **success_response("text/html", "HTML fragment", schema={"type": "string"}, example="<h1>Title</h1>\n"),
        **ERRORS,
    },
)
def markdown_html(
    body: RawBody,
    allowHtml: Annotated[bool, Query(description="Pass raw HTML through (unsafe for untrusted input).")] = False,
) -> Response:
    return Response(markdown_to_html(body, allow_html=allowHtml), media_type="text/html")


@router.post(
    "/v1/color/convert",
    summary="Convert a colour",
    tags=["Color"],
    description=(
        "JSON {color} in any CSS syntax people use (#rgb, #rgba, #rrggbb, #rrggbbaa, rgb()/rgba(), hsl()/hsla(), "
        "hwb(), the 148 named colours, transparent, cmyk()); out: hex, rgb (0-255), hsl and hsv (degrees, "
        "percent), cmyk (percent), one decimal; alpha (0-1, three decimals) where given. Out-of-range or "
        "unreadable colours are 400 (naming an out-of-range number, never echoing the rest of the input)."
    ),
    responses={
        **success_response(
            "application/json",
            "Colour",
            schema=COLOR_SCHEMA,
            example={
                "hex": "#663399",
                "rgb": {"r": 102, "g": 51, "b": 153},
                "hsl": {"h": 270.0, "s": 50.0, "l": 40.0},
                "hsv": {"h": 270.0, "s": 66.7, "v": 60.0},
                "cmyk": {"c": 33.3, "m": 66.7, "y": 0.0, "k": 40.0},
            },
        ),
        **ERRORS,
    },
)
def color_convert(request: ColorRequest) -> Response:
    return JSONResponse(convert_color(request.color))


app = create_app(router, title="Text")
handler = lambda_handler(app)
