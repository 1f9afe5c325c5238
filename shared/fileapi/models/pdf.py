"""PDF documents: information, text, rendered pages, split and compressed documents."""

from __future__ import annotations

from pydantic import Field

from fileapi.models import ApiModel, Base64Text, example
from fileapi.web import examples


class PageSize(ApiModel):
    """A page's size as displayed, in PDF points (1/72 inch)."""

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

    page: int = Field(description="1-based page number.")
    image: Base64Text = Field(alias="bytes", description="The image, Base64-encoded.")
    width: int = Field(description="Pixels.")
    height: int = Field(description="Pixels.")


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
