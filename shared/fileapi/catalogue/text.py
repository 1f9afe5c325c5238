"""The file, text and colour conversions (the Text function): hashes, type detection, word counts, diffs,
Markdown and colours."""

from __future__ import annotations

from fileapi.catalogue.converters import Named
from fileapi.catalogue.declaration import ANY, Conversion, Reads, Takes, gives_json, gives_text
from fileapi.convert.text_options import WORDS_PER_MINUTE
from fileapi.models.text import (
    ColorConvertResult,
    ColorRequest,
    DiffRequest,
    FileDetectResult,
    FileHashResult,
    HashOptions,
    MarkdownOptions,
    TextDiffResult,
    TextWordCountResult,
)

FAMILY = "text"
# What the family's conversion workers import before their first job.
WORKER_MODULES = ("fileapi.convert.textdiff", "fileapi.convert.markdown_html", "comrak")

CONVERSIONS = (
    Conversion(
        path="/v1/file/hash",
        family=FAMILY,
        summary="Hash bytes",
        description="Any bytes in; the digest (md5, sha1, sha256 (default), sha384 or sha512) in hex and Base64.",
        takes=Takes(Reads.FILE, ANY, doc="The bytes to hash (may be empty; any Content-Type)."),
        options=HashOptions,
        gives=gives_json(FileHashResult),
        convert=Named("fileapi.convert.hashing", "hash_bytes"),
        isolated=False,
        tags=("File",),
    ),
    Conversion(
        path="/v1/file/detect",
        family=FAMILY,
        summary="Detect the file type from magic bytes",
        description="Any bytes in; the type from the content, never from a name: containers told apart (DOCX/XLSX/"
        "PPTX, ODF, EPUB inside ZIP; WebP/WAV/AVI inside RIFF; AVIF/HEIC/MP4/MOV by brand), SVG, HTML, XHTML, XML and "
        "JSON by their text (an XML declaration first included), other UTF-8 text, and UTF-16 text after its byte "
        "order mark, as text/plain, anything unknown as application/octet-stream. A bare "
        "JSON scalar (e.g. `0`) is text/plain. An empty body is 400.",
        takes=Takes(Reads.FILE, ANY, doc="The file's bytes (any Content-Type: the type is read from the bytes)."),
        gives=gives_json(FileDetectResult),
        convert=Named("fileapi.convert.detect", "detect_type"),
        isolated=False,
        tags=("File",),
    ),
    Conversion(
        path="/v1/text/word-count",
        family=FAMILY,
        summary="Count words, characters, sentences and paragraphs",
        description="UTF-8 text in. Words are runs of letters and digits (inner ' - . allowed); each CJK ideograph or "
        "kana counts as a word. Characters are grapheme clusters. Sentences end in . ! ? … (or full-width forms); "
        f"paragraphs are separated by blank lines. Reading time is words / {WORDS_PER_MINUTE} per minute. Invalid "
        "UTF-8 is 400.",
        takes=Takes(
            Reads.TEXT, "text/plain", doc="UTF-8 text.", text_types=("text/plain",), example="Hello world. How are you?"
        ),
        gives=gives_json(TextWordCountResult),
        convert=Named("fileapi.convert.wordcount", "count_text"),
        isolated=False,
        tags=("Text",),
    ),
    Conversion(
        path="/v1/text/diff",
        family=FAMILY,
        summary="Diff two texts",
        description="JSON {a, b, context?, labelA?, labelB?} in; a unified diff (as `diff -u` writes it; `patch` "
        "applies it), its hunks with 1-based line numbers and typed lines, counts of added and removed lines, and "
        "whether the texts are identical. Lines end at LF; a last line without LF is marked `\\ No newline at end of "
        "file`.",
        takes=Takes(Reads.JSON),
        options=DiffRequest,
        gives=gives_json(TextDiffResult, plain=True),
        convert=Named("fileapi.convert.textdiff", "diff_texts"),
        tags=("Text",),
    ),
    Conversion(
        path="/v1/text/markdown-to-html",
        family=FAMILY,
        summary="Render Markdown as HTML",
        description="UTF-8 Markdown in (CommonMark with tables, strikethrough, task lists and autolinks); an HTML "
        "fragment out. Raw HTML in the input is escaped unless `allowHtml=true` (then it passes through unchanged: "
        "only for trusted input). javascript:, vbscript:, file: and non-image data: links are never rendered as "
        "links. At most 2,000,000 bytes of Markdown (413 too_large), which keeps the worst input well inside the "
        "deadline.",
        takes=Takes(
            Reads.TEXT,
            "text/markdown",
            doc="Markdown text.",
            text_types=("text/markdown", "text/plain"),
            example="# Title\n",
        ),
        options=MarkdownOptions,
        gives=gives_text("text/html", "HTML fragment", "<h1>Title</h1>\n"),
        convert=Named("fileapi.convert.markdown_html", "markdown_to_html"),
        tags=("Text",),
    ),
    Conversion(
        path="/v1/color/convert",
        family=FAMILY,
        summary="Convert a colour",
        description="JSON {color} in any CSS syntax people use (#rgb, #rgba, #rrggbb, #rrggbbaa, rgb()/rgba(), "
        "hsl()/hsla(), hwb(), the 148 named colours, transparent, cmyk()); out: hex, rgb (0-255), hsl and hsv "
        "(degrees, percent), cmyk (percent), one decimal; alpha (0-1, three decimals) where given. Out-of-range or "
        "unreadable colours are 400 (naming an out-of-range number, never echoing the rest of the input).",
        takes=Takes(Reads.JSON),
        options=ColorRequest,
        gives=gives_json(ColorConvertResult),
        convert=Named("fileapi.convert.color", "convert_color"),
        isolated=False,
        tags=("Color",),
    ),
)
