"""PDF documents: the options of each operation; information, text, rendered pages, split and compressed
documents."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field
from pydantic_core import PydanticCustomError

from fileapi.convert.ocr_options import DEFAULT_LANGUAGES, OcrOutput
from fileapi.convert.pages import check_page_list, check_ranges
from fileapi.convert.pdf import RenderFormat
from fileapi.convert.pdf_edit import DEFAULT_OPACITY, DEFAULT_ROTATION
from fileapi.convert.pdf_options import (
    DEFAULT_FILL,
    MAX_AREAS,
    MAX_FIELD_CHARS,
    MAX_ORDER_CHARS,
    MAX_PASSWORD_CHARS,
    MAX_PATTERNS,
    MAX_TERM_CHARS,
    MAX_TEXTS,
    ImagePageSize,
)
from fileapi.errors import InvalidInput
from fileapi.models import ApiModel, ApiRequest, Base64Text, QueryOptions, example, examples
from fileapi.models.ocr import OcrLanguages
from fileapi.models.quality import LossyOptions, TargetScore


class PageSize(ApiModel):
    """A page's size as displayed, in PDF points (1/72 inch)."""

    model_config = example({"width": 612.0, "height": 792.0})

    width: float = Field(description="Points.")
    height: float = Field(description="Points.")


class PdfInfoResult(ApiModel):
    """Page count, page sizes, metadata and encryption of the document."""

    model_config = example(
        {
            "pageCount": 1,
            "pageSizes": [{"width": 612.0, "height": 792.0}],
            "metadata": {"title": "Report", "producer": "LibreOffice"},
            "encrypted": False,
        }
    )

    page_count: int = Field(description="Number of pages.")
    page_sizes: list[PageSize] = Field(description="One per page, in order.")
    metadata: dict[str, str] = Field(description="title, author, subject, keywords, producer, creator when present.")
    encrypted: bool = Field(description="Encrypted (with an empty user password: it was read).")


class PdfExtractTextResult(ApiModel):
    """The text of the chosen pages."""

    model_config = example({"text": "Page one\fPage two", "pages": ["Page one", "Page two"]})

    text: str = Field(description="The pages' text joined by form feeds.")
    pages: list[str] = Field(description="One string per chosen page.")


class RenderedPage(ApiModel):
    """One page as an image."""

    model_config = example({"page": 1, "bytes": examples.PNG_BASE64, "width": 1, "height": 1})

    page: int = Field(description="1-based page number.")
    image: Base64Text = Field(alias="bytes", description="The image, Base64-encoded.")
    width: int = Field(description="Pixels.")
    height: int = Field(description="Pixels.")
    quality_score: float | None = Field(
        default=None, description="With targetScore: the SSIMULACRA2 score the page reached."
    )
    encoder_quality: float | None = Field(
        default=None,
        description="With targetScore: the encoder quality chosen (1-100; a whole number, but for JPEG XL a "
        "multiple of 0.25).",
    )


class PdfRenderPageResult(ApiModel):
    """The chosen pages as images."""

    model_config = example({"pages": [{"page": 1, "bytes": examples.PNG_BASE64, "width": 1, "height": 1}]})

    pages: list[RenderedPage] = Field(description="In the order asked for.")


class PdfOcrTextResult(ApiModel):
    """The text of every page: recognised, or the page's own text where it had some (unless force)."""

    model_config = example({"text": "Page one\fPage two", "pages": ["Page one", "Page two"]})

    text: str = Field(description="The pages' text joined by form feeds.")
    pages: list[str] = Field(description="One string per page, in order.")


class PdfSplitResult(ApiModel):
    """One PDF per range."""

    model_config = example({"pdfs": [examples.PDF_BASE64]})

    pdfs: list[Base64Text] = Field(description="One PDF per range, Base64-encoded, in the order given.")


class PdfCompressResult(ApiModel):
    """The compressed PDF and how much it saved."""

    model_config = example(
        {"bytes": examples.PDF_BASE64, "originalSize": 120000, "compressedSize": 90000, "savedPercent": 25.0}
    )

    document: Base64Text = Field(alias="bytes", description="The compressed PDF, Base64-encoded.")
    original_size: int = Field(description="Bytes in.")
    compressed_size: int = Field(description="Bytes out (never more than in).")
    saved_percent: float = Field(description="Percent saved, one decimal.")


# Each options model's fields are its converter's keyword arguments (a test holds them together), so a
# route calls `converter(body, **options.model_dump())`.


def _page_list(text: str | None) -> str | None:
    """A page list whose form no document could satisfy is refused with the options (an operation before 202)."""
    return _checked(check_page_list, text)


def _ranges(text: str) -> str:
    """Ranges no document could satisfy are refused with the options (an operation before 202)."""
    checked = _checked(check_ranges, text)
    assert checked is not None
    return checked


def _checked(check: Callable[[str], None], text: str | None) -> str | None:
    if text is not None:
        try:
            check(text)
        except InvalidInput as refused:
            raise PydanticCustomError("page_list", "{reason}", {"reason": refused.message}) from None
    return text


Pages = Annotated[
    str | None,
    Field(max_length=1000, description="Pages such as '1,3,5', '2-4' or 'all'."),
    AfterValidator(_page_list),
]
KEEP_ACTIVE_CONTENT_DESCRIPTION = (
    "Keep JavaScript, actions run on opening or by form fields, launch actions and embedded files "
    "(by default they are removed; links and bookmarks that navigate stay)."
)
KeepActiveContent = Annotated[bool, Field(description=KEEP_ACTIVE_CONTENT_DESCRIPTION)]


class ExtractTextOptions(QueryOptions):
    pages: Pages = None


class SplitOptions(QueryOptions):
    ranges: Annotated[str, Field(max_length=1000, description="e.g. '1-3,4-4,7'."), AfterValidator(_ranges)]


class PdfRotateOptions(QueryOptions):
    degrees: Literal["90", "180", "270"] = Field(description="Clockwise rotation in degrees.")
    pages: Pages = None
    keep_active_content: KeepActiveContent = False


class RenderOptions(LossyOptions):
    pages: Pages = None
    fmt: RenderFormat = Field(default=RenderFormat.PNG, alias="format", description="Image format.")
    dpi: int = Field(default=150, ge=72, le=300, description="Resolution, dots per inch.")
    target_score: TargetScore = None


class WatermarkOptions(QueryOptions):
    text: str = Field(min_length=1, max_length=200, description="Watermark text.")
    opacity: float = Field(default=DEFAULT_OPACITY, ge=0, le=1, description="0 (invisible) to 1 (opaque).")
    rotation: float = Field(default=DEFAULT_ROTATION, ge=-360, le=360, description="Degrees, counter-clockwise.")
    font_size: float | None = Field(default=None, ge=1, le=1000, description="Points.")
    pages: Pages = None
    keep_active_content: KeepActiveContent = False


class FlattenOptions(QueryOptions):
    keep_active_content: KeepActiveContent = False


class CompressOptions(QueryOptions):
    strip_metadata: bool = Field(default=False, description="Remove the info dictionary and XMP.")
    image_max_side: int | None = Field(default=None, ge=16, le=10_000, description="Downsample larger images.")
    keep_active_content: KeepActiveContent = False


class ProtectOptions(QueryOptions):
    user_password: str = Field(min_length=1, max_length=128, description="Password to open.")
    owner_password: str | None = Field(default=None, min_length=1, max_length=128, description="Full rights.")
    allow_printing: bool = Field(default=True, description="Let the reader print the document.")
    allow_copying: bool = Field(default=True, description="Let the reader copy or extract its text and images.")
    allow_modifying: bool = Field(
        default=False, description="Let the reader change the document: annotations, form fields, pages, content."
    )
    keep_active_content: KeepActiveContent = False


OCR_LANGUAGES_DESCRIPTION = (
    "Tesseract language codes joined by '+', such as 'eng' or 'eng+deu': the languages the text is in. Installed: eng."
)


class PdfOcrOptions(QueryOptions):
    output: OcrOutput = Field(
        default=OcrOutput.PDF,
        description="pdf: the PDF with an invisible, searchable text layer over each recognised page (its "
        "images untouched); text: JSON {text, pages}.",
    )
    languages: OcrLanguages = DEFAULT_LANGUAGES
    force: bool = Field(
        default=False, description="Recognise pages that already have text too (by default they are left alone)."
    )


class PdfMergeForm(ApiRequest):
    """The PDFs to merge, as form parts."""

    files: list[bytes] = Field(description="The PDFs, in order.")


class FillFormOptions(ApiRequest):
    """The values to put in a PDF form, and whether to flatten it."""

    fields: dict[str, Any] = Field(description="Field name to value: text, true/false, an export value or a list.")
    flatten: bool = Field(default=False, description="Bake the values into the pages and remove the form.")
    keep_active_content: KeepActiveContent = False


class FormDocument(ApiModel):
    pdf: Base64Text = Field(description="The PDF form, Base64-encoded.")


class PdfFillFormRequest(FillFormOptions, FormDocument):  # FormDocument's field first: pdf, then the options
    """A PDF form and the values to put in it."""

    model_config = example(
        {"pdf": examples.PDF_BASE64, "fields": {"name": "Ada Lovelace", "agree": True, "country": "UK"}}
    )


class UnlockOptions(QueryOptions):
    """Remove a PDF's password and restrictions: the document comes back decrypted, to open, print, copy and
    change freely. Give its user or owner password; a document protected only by an owner password (it opens
    without one, with printing or copying restricted) needs none. A wrong password is 400 `wrong_password`; a
    document that is not encrypted comes back unchanged, byte for byte."""

    password: str = Field(
        default="", max_length=MAX_PASSWORD_CHARS, description="The user or owner password (case-sensitive)."
    )


class MetadataOptions(QueryOptions):
    """Set a PDF's title, author, subject, keywords, creator and producer. Each field given is written to the
    document information dictionary and to the XMP metadata, so every reader shows the same value; a field
    given empty (`title=`) is removed from both; a field not given is left as it is. Up to 4,000 characters a
    field, any Unicode that XML carries: tab, line feed and carriage return are kept (a multi-line subject),
    the other C0 controls, U+FFFE and U+FFFF are refused (400)."""

    title: str | None = Field(default=None, max_length=MAX_FIELD_CHARS, description="The document's title.")
    author: str | None = Field(default=None, max_length=MAX_FIELD_CHARS, description="Who wrote it.")
    subject: str | None = Field(default=None, max_length=MAX_FIELD_CHARS, description="What it is about.")
    keywords: str | None = Field(default=None, max_length=MAX_FIELD_CHARS, description="Keywords, separated by commas.")
    creator: str | None = Field(
        default=None, max_length=MAX_FIELD_CHARS, description="The application that made the original document."
    )
    producer: str | None = Field(
        default=None, max_length=MAX_FIELD_CHARS, description="The application that made the PDF."
    )


class PagesOptions(QueryOptions):
    """Reorder, delete, duplicate and insert pages in one step: `order` lists the new document's pages.
    `3,1,2` reorders, a page left out is deleted (its content is removed from the file, with the bookmarks
    that led to it), a page listed twice is duplicated, `5-8` is a range (`8-5` the same pages in reverse),
    and `blank` inserts an empty page the size of the page before it. At most 5,000 pages."""

    order: str = Field(
        min_length=1,
        max_length=MAX_ORDER_CHARS,
        description="The new page list, comma-separated: page numbers, ranges such as '5-8', and 'blank'.",
        examples=["3,1,2,2,blank,5-8"],
    )


class FromImagesOptions(QueryOptions):
    """Images to one PDF, a page each, in the order sent, without losing a pixel: a JPEG or JPEG 2000 goes in
    byte for byte (never re-encoded), a PNG with its compressed pixels as they are, and any other image (WebP, JPEG XL,
    HEIC, AVIF, GIF, BMP, TIFF, a PNG with transparency) decoded and stored losslessly, transparency as a
    soft mask. Each page is the image's own size at its DPI (96 when it has none), kept within the sizes PDF
    allows (3 to 14,400 points a side: a larger image is scaled down, a side under 3 points gets a 3-point page
    with the image centred), or A4 or letter turned to the image's orientation, the image fitted and centred.
    Up to 1,000 images of at most 50 megapixels each."""

    page_size: ImagePageSize = Field(
        default=ImagePageSize.AUTO,
        description="auto: the image's size at its DPI (96 when none); a4 or letter: the image fitted, centred.",
    )


class PdfFromImagesForm(ApiRequest):
    """The images, as form parts."""

    files: list[bytes] = Field(description="The images (JPEG, PNG, WebP, HEIC, AVIF, GIF, BMP, TIFF), in order.")


class RedactOptions(QueryOptions):
    """Redact a PDF so that the text is gone, not covered: every occurrence of each `text`, every match of each
    `pattern` and everything under each `area` is removed from the page content (glyphs, with the rest of the
    line left in place; image pixels overwritten, and an image's mask made shapeless there; annotations and
    form values cleared), the same strings are removed from the metadata, XMP, annotations, form fields,
    bookmarks, scripts and attachments (one holding it as text is emptied; a compressed one, such as a zip
    or a .docx, is not searched), a redacted page's thumbnail is removed, and each area is filled with
    `fill`. A match in marked content's /ActualText (the text a tagged PDF gives for its glyphs) removes all
    the glyphs that span draws, since which glyph stands for which letter is not known. The `X-Redactions`
    header gives the number of areas redacted (those given, and one per line of each match)."""

    texts: list[str] = Field(
        default_factory=list,
        alias="text",
        max_length=MAX_TEXTS,
        description=f"Text to remove, exactly as written (case-sensitive); repeat for more (up to {MAX_TEXTS}).",
    )
    patterns: list[str] = Field(
        default_factory=list,
        alias="pattern",
        max_length=MAX_PATTERNS,
        description=(
            "A regular expression whose matches are removed, such as \\d{3}-\\d{2}-\\d{4}; repeat for more (up "
            f"to {MAX_PATTERNS}, {MAX_TERM_CHARS} characters each). RE2 syntax: it never backtracks, so it has no "
            "lookarounds or backreferences."
        ),
    )
    areas: list[str] = Field(
        default_factory=list,
        alias="area",
        max_length=MAX_AREAS,
        description=(
            "A rectangle to redact, 'page,x,y,width,height' in points (1/72 inch) from the page's lower left "
            f"corner (unrotated); repeat for more (up to {MAX_AREAS:,})."
        ),
        examples=[["1,72,700,200,24"]],
    )
    fill: str = Field(
        default=DEFAULT_FILL, pattern=r"^#[0-9a-fA-F]{6}$", description="The colour drawn over each area, #rrggbb."
    )
