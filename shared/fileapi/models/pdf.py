"""PDF documents: the options of each operation; information, text, rendered pages, split and compressed
documents."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from fileapi.convert.pdf import RenderFormat
from fileapi.convert.pdf_edit import DEFAULT_OPACITY, DEFAULT_ROTATION
from fileapi.models import ApiModel, Base64Text, QueryOptions, example, examples
from fileapi.models.quality import TargetScore


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
    encoder_quality: int | None = Field(default=None, description="With targetScore: the encoder quality chosen.")


class PdfRenderPageResult(ApiModel):
    """The chosen pages as images."""

    model_config = example({"pages": [{"page": 1, "bytes": examples.PNG_BASE64, "width": 1, "height": 1}]})

    pages: list[RenderedPage] = Field(description="In the order asked for.")


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
Pages = Annotated[str | None, Field(max_length=1000, description="Pages such as '1,3,5', '2-4' or 'all'.")]
KEEP_ACTIVE_CONTENT_DESCRIPTION = (
    "Keep JavaScript, actions run on opening or by form fields, launch actions and embedded files "
    "(by default they are removed; links and bookmarks that navigate stay)."
)
KeepActiveContent = Annotated[bool, Field(description=KEEP_ACTIVE_CONTENT_DESCRIPTION)]


class RenderOptions(QueryOptions):
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


class PdfMergeForm(ApiModel):
    """The PDFs to merge, as form parts."""

    files: list[bytes] = Field(description="The PDFs, in order.")


class PdfFillFormRequest(ApiModel):
    """A PDF form and the values to put in it."""

    model_config = example(
        {"pdf": examples.PDF_BASE64, "fields": {"name": "Ada Lovelace", "agree": True, "country": "UK"}}
    )

    pdf: Base64Text = Field(description="The PDF form, Base64-encoded.")
    fields: dict[str, Any] = Field(description="Field name to value: text, true/false, an export value or a list.")
    flatten: bool = Field(default=False, description="Bake the values into the pages and remove the form.")
    keep_active_content: KeepActiveContent = False
