"""Text function: /v1/file/* (hash, detect), /v1/text/* (word count, diff, Markdown) and /v1/color/convert."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query
from starlette.responses import Response

from fileapi.convert.color import convert_color
from fileapi.convert.detect import detect_type
from fileapi.convert.hashing import HashAlgorithm, hash_bytes
from fileapi.convert.markdown_html import markdown_to_html
from fileapi.convert.textdiff import diff_texts
from fileapi.convert.wordcount import WORDS_PER_MINUTE, count_text
from fileapi.models.text import (
    ColorConvertResult,
    ColorRequest,
    DiffRequest,
    FileDetectResult,
    FileHashResult,
    TextDiffResult,
    TextWordCountResult,
)
from fileapi.web.app import create_app, lambda_handler
from fileapi.web.deadline import bounded
from fileapi.web.docs import raw_body
from fileapi.web.io import RawBody, TextBody
from fileapi.web.metering import MeteredRoute, metered
from fileapi.web.routes import answers_json, answers_text, json_response

router = APIRouter(route_class=MeteredRoute, dependencies=[Depends(metered)])


@router.post(
    "/v1/file/hash",
    summary="Hash bytes",
    tags=["File"],
    description="Any bytes in; the digest (md5, sha1, sha256 (default), sha384 or sha512) in hex and Base64.",
    openapi_extra=raw_body("The bytes to hash (may be empty; any Content-Type)."),
    **answers_json(FileHashResult),
)
@bounded
def file_hash(
    body: RawBody,
    algorithm: Annotated[HashAlgorithm, Query(description="Digest algorithm.")] = HashAlgorithm.SHA256,
) -> Response:
    return json_response(FileHashResult.model_validate(hash_bytes(body, algorithm=algorithm)))


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
    **answers_json(FileDetectResult),
)
@bounded
def file_detect(body: RawBody) -> Response:
    return json_response(FileDetectResult.model_validate(detect_type(body)))


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
    **answers_json(TextWordCountResult),
)
@bounded
def word_count(body: TextBody) -> Response:
    return json_response(TextWordCountResult.model_validate(count_text(body)))


@router.post(
    "/v1/text/diff",
    summary="Diff two texts",
    tags=["Text"],
    description=(
        "JSON {a, b, context?, labelA?, labelB?} in; a unified diff (as `diff -u` writes it; `patch` applies it), "
        "its hunks with 1-based line numbers and typed lines, counts of added and removed lines, and whether the "
        "texts are identical. Lines end at LF; a last line without LF is marked `\\ No newline at end of file`."
    ),
    **answers_json(TextDiffResult),
)
def text_diff(request: DiffRequest) -> Response:
    result = diff_texts(request.a, request.b, context=request.context, label_a=request.label_a, label_b=request.label_b)
    return json_response(TextDiffResult.model_validate(result))


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
    **answers_text("text/html", "HTML fragment", "<h1>Title</h1>\n"),
)
def markdown_html(
    body: TextBody,
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
    **answers_json(ColorConvertResult),
)
@bounded
def color_convert(request: ColorRequest) -> Response:
    return json_response(ColorConvertResult.model_validate(convert_color(request.color)))


app = create_app(router, title="Text")
handler = lambda_handler(app)
