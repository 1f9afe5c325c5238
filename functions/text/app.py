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
from fileapi.web.conversions import in_process, isolated
from fileapi.web.docs import ISOLATED_STATUSES, raw_body
from fileapi.web.io import RawBody, TextBody
from fileapi.web.metering import MeteredRoute, metered
from fileapi.web.routes import Routes, answers_text, json_response

router = APIRouter(route_class=MeteredRoute, dependencies=[Depends(metered)])
files = Routes(router, tags=["File"])
texts = Routes(router, tags=["Text"])
colors = Routes(router, tags=["Color"])


@files.post(
    "/v1/file/hash",
    "Hash bytes",
    FileHashResult,
    body=raw_body("The bytes to hash (may be empty; any Content-Type)."),
)
async def file_hash(
    body: RawBody,
    algorithm: Annotated[HashAlgorithm, Query(description="Digest algorithm.")] = HashAlgorithm.SHA256,
) -> Response:
    """Any bytes in; the digest (md5, sha1, sha256 (default), sha384 or sha512) in hex and Base64."""
    return json_response(FileHashResult.model_validate(await in_process(hash_bytes, body, algorithm=algorithm)))


@files.post(
    "/v1/file/detect",
    "Detect the file type from magic bytes",
    FileDetectResult,
    body=raw_body("The file's bytes (any Content-Type: the type is read from the bytes)."),
)
async def file_detect(body: RawBody) -> Response:
    """Any bytes in; the type from the content, never from a name: containers told apart (DOCX/XLSX/PPTX, ODF,
    EPUB inside ZIP; WebP/WAV/AVI inside RIFF; AVIF/HEIC/MP4/MOV by brand), SVG, HTML, XHTML, XML and JSON by
    their text, other UTF-8 text as text/plain, anything unknown as application/octet-stream. A bare JSON
    scalar (e.g. `0`) is text/plain. An empty body is 400."""
    return json_response(FileDetectResult.model_validate(await in_process(detect_type, body)))


@texts.post(
    "/v1/text/word-count",
    "Count words, characters, sentences and paragraphs",
    TextWordCountResult,
    body=raw_body("UTF-8 text.", text_types=("text/plain",), example="Hello world. How are you?"),
    description=(
        "UTF-8 text in. Words are runs of letters and digits (inner ' - . allowed); each CJK ideograph or kana "
        "counts as a word. Characters are grapheme clusters. Sentences end in . ! ? … (or full-width forms); "
        "paragraphs are separated by blank lines. Reading time is words / "
        f"{WORDS_PER_MINUTE} per minute. Invalid UTF-8 is 400."
    ),
)
async def word_count(body: TextBody) -> Response:
    return json_response(TextWordCountResult.model_validate(await in_process(count_text, body)))


@texts.post("/v1/text/diff", "Diff two texts", TextDiffResult, statuses=ISOLATED_STATUSES)
async def text_diff(request: DiffRequest) -> Response:
    r"""JSON {a, b, context?, labelA?, labelB?} in; a unified diff (as `diff -u` writes it; `patch` applies it),
    its hunks with 1-based line numbers and typed lines, counts of added and removed lines, and whether the texts
    are identical. Lines end at LF; a last line without LF is marked `\ No newline at end of file`."""
    return json_response(TextDiffResult.model_validate(await isolated(diff_texts, **request.model_dump())))


@texts.post(
    "/v1/text/markdown-to-html",
    "Render Markdown as HTML",
    answers_text("text/html", "HTML fragment", "<h1>Title</h1>\n"),
    body=raw_body("Markdown text.", text_types=("text/markdown", "text/plain"), example="# Title\n"),
    statuses=ISOLATED_STATUSES,
)
async def markdown_html(
    body: TextBody,
    allowHtml: Annotated[bool, Query(description="Pass raw HTML through (unsafe for untrusted input).")] = False,
) -> Response:
    """UTF-8 Markdown in (CommonMark with tables, strikethrough, task lists and autolinks); an HTML fragment out.
    Raw HTML in the input is escaped unless `allowHtml=true` (then it passes through unchanged: only for trusted
    input). javascript:, vbscript:, file: and non-image data: links are never rendered as links. At most
    2,000,000 bytes of Markdown (413 too_large), which keeps the worst input well inside the deadline."""
    return Response(await isolated(markdown_to_html, body, allow_html=allowHtml), media_type="text/html")


@colors.post("/v1/color/convert", "Convert a colour", ColorConvertResult)
async def color_convert(request: ColorRequest) -> Response:
    """JSON {color} in any CSS syntax people use (#rgb, #rgba, #rrggbb, #rrggbbaa, rgb()/rgba(), hsl()/hsla(),
    hwb(), the 148 named colours, transparent, cmyk()); out: hex, rgb (0-255), hsl and hsv (degrees, percent),
    cmyk (percent), one decimal; alpha (0-1, three decimals) where given. Out-of-range or unreadable colours are
    400 (naming an out-of-range number, never echoing the rest of the input)."""
    return json_response(ColorConvertResult.model_validate(await in_process(convert_color, request.color)))


# What its conversion workers import before their first job.
WORKER_MODULES = ("fileapi.convert.textdiff", "fileapi.convert.markdown_html", "comrak")
app = create_app(router, title="Text", worker_modules=WORKER_MODULES)
handler = lambda_handler(app)
