"""Images: the options of each operation, metadata and favicon sets."""

from __future__ import annotations

from typing import Annotated, Any, Self

from pydantic import Field, create_model, model_validator
from pydantic_core import PydanticCustomError

from fileapi.convert.favicons import FAVICON_PNGS
from fileapi.convert.image import COMPRESS_QUALITY, RESIZE_SIDES, Fit, FlipDirection, Rotation
from fileapi.convert.image_io import ImageFormat
from fileapi.convert.ocr_options import DEFAULT_LANGUAGES
from fileapi.models import ApiModel, Base64Text, QueryOptions, example, examples
from fileapi.models.ocr import OcrLanguages
from fileapi.models.quality import LossyOptions, TargetScore


class Gps(ApiModel):
    """Where the picture was taken: signed decimal degrees (south and west negative)."""

    model_config = example({"latitude": 43.4674, "longitude": 11.8851, "altitude": 112.0})

    latitude: float = Field(description="Degrees, north positive.")
    longitude: float = Field(description="Degrees, east positive.")
    altitude: float | None = Field(default=None, description="Metres; below sea level negative.")


class ImageReadMetadataResult(ApiModel):
    """The image's size as displayed and what its EXIF says."""

    model_config = example(
        {
            "width": 4000,
            "height": 3000,
            "takenAt": "2024-05-01T12:30:00+02:00",
            "camera": {"make": "NIKON", "model": "COOLPIX P6000"},
            "gps": {"latitude": 43.4674, "longitude": 11.8851, "altitude": 112.0},
            "exif": {"ExposureTime": 0.004, "FNumber": 2.8},
        }
    )

    width: int = Field(description="Pixels, after the EXIF orientation.")
    height: int = Field(description="Pixels, after the EXIF orientation.")
    taken_at: str | None = Field(default=None, description="ISO 8601, with offset when known.")
    camera: dict[str, str] | None = Field(default=None, description="make, model, lens when present.")
    gps: Gps | None = Field(default=None, description="Present when the file has a position.")
    exif: dict[str, Any] = Field(description="Other EXIF tags by name.")


class _FaviconPngs(ApiModel):
    model_config = example({name: examples.PNG_BASE64 for name in FAVICON_PNGS})


ImageFaviconSetResultPngs = create_model(
    "ImageFaviconSetResultPngs",
    __base__=_FaviconPngs,
    __doc__="Square PNGs by file name, Base64-encoded.",
    **{
        f"png_{size}_{position}": (Base64Text, Field(alias=name, description=f"{size} x {size} px."))
        for position, (name, size) in enumerate(FAVICON_PNGS.items())
    },  # type: ignore[call-overload]
)


class ImageFaviconSetResult(ApiModel):
    """A favicon set: favicon.ico, square PNGs and a web manifest snippet."""

    model_config = example(
        {
            "ico": examples.ICO_BASE64,
            "pngs": {name: examples.PNG_BASE64 for name in FAVICON_PNGS},
            "manifest": examples.MANIFEST,
        }
    )

    ico: Base64Text = Field(description="favicon.ico with 16, 32 and 48 px, Base64-encoded.")
    pngs: ImageFaviconSetResultPngs = Field(description="Square PNGs by file name.")  # type: ignore[valid-type]
    manifest: str = Field(description="A web manifest snippet (JSON text) listing the android-chrome icons.")


class OcrBoundingBox(ApiModel):
    """A rectangle of the image as displayed (EXIF orientation applied), in pixels from its top left corner."""

    model_config = example({"x": 120, "y": 125, "width": 937, "height": 21})

    x: int = Field(description="Left edge, pixels.")
    y: int = Field(description="Top edge, pixels.")
    width: int = Field(description="Pixels.")
    height: int = Field(description="Pixels.")


class OcrBlock(ApiModel):
    """One line of recognised text."""

    model_config = example(
        {"text": "Invoice 2024-117", "bbox": {"x": 120, "y": 125, "width": 937, "height": 21}, "confidence": 96.3}
    )

    text: str = Field(description="The line's words, joined by spaces.")
    bbox: OcrBoundingBox = Field(description="The line's box.")
    confidence: float = Field(description="The mean of its words' confidences, 0-100.")


class ImageOcrResult(ApiModel):
    """The recognised text, and each line of it with its box."""

    model_config = example(
        {
            "text": "Invoice 2024-117\nTotal 42.00",
            "blocks": [
                {
                    "text": "Invoice 2024-117",
                    "bbox": {"x": 120, "y": 125, "width": 937, "height": 21},
                    "confidence": 96.3,
                },
                {"text": "Total 42.00", "bbox": {"x": 120, "y": 160, "width": 300, "height": 21}, "confidence": 91.0},
            ],
        }
    )

    text: str = Field(description="Lines joined by newlines, paragraphs by a blank line.")
    blocks: list[OcrBlock] = Field(description="One per line of text, in reading order.")


OutputFormat = Annotated[
    ImageFormat | None, Field(alias="format", description="Output format (default: keep the input's).")
]
Quality = Annotated[int | None, Field(ge=1, le=100, description="1-100; default per format (see description).")]

# Each options model's fields are its converter's keyword arguments (a test holds them together), so a
# route calls `converter(body, **options.model_dump())`.


class ConvertOptions(LossyOptions):
    to: ImageFormat = Field(description="Target format.")
    quality: Quality = None
    target_score: TargetScore = None
    jpeg_transcode: bool = Field(
        default=False,
        description=(
            "With to=jxl and a JPEG body: recompress the JPEG losslessly (about 20% smaller; a JPEG XL decoder "
            "gives back the JPEG byte for byte, metadata included). Not with quality or targetScore."
        ),
    )


class ResizeOptions(LossyOptions):
    width: int | None = Field(
        default=None, ge=1, description="Target width in pixels. Give width, height or both (at least one)."
    )
    height: int | None = Field(
        default=None, ge=1, description="Target height in pixels. Give width, height or both (at least one)."
    )
    fit: Fit = Field(default=Fit.COVER, description="How to fit width x height.")
    fmt: OutputFormat = None
    quality: Quality = None
    target_score: TargetScore = None

    @model_validator(mode="after")
    def _a_side_is_given(self) -> Self:
        """resize_image needs a width or a height: refused here too, so that an operation is refused before 202."""
        if self.width is None and self.height is None:
            raise PydanticCustomError("missing_option", RESIZE_SIDES)
        return self


class CompressOptions(LossyOptions):
    quality: int | None = Field(default=None, ge=1, le=100, description="1-100 (this or targetScore).")
    fmt: OutputFormat = None
    palette_colors: int | None = Field(
        default=None, alias="colors", ge=2, le=256, description="PNG only: quantise to this many colours."
    )
    target_score: TargetScore = None

    @model_validator(mode="after")
    def _a_quality_is_given(self) -> Self:
        """compress_image needs a quality or a target score: refused here too, before an operation's 202."""
        if self.quality is None and self.target_score is None:
            raise PydanticCustomError("missing_option", COMPRESS_QUALITY)
        return self


class CropOptions(LossyOptions):
    x: int = Field(ge=0, description="Left edge, pixels.")
    y: int = Field(ge=0, description="Top edge, pixels.")
    width: int = Field(ge=1, description="Width, pixels.")
    height: int = Field(ge=1, description="Height, pixels.")
    fmt: OutputFormat = None
    quality: Quality = None
    target_score: TargetScore = None


class RotateOptions(LossyOptions):
    degrees: Rotation = Field(description="Clockwise rotation in degrees.")
    fmt: OutputFormat = None
    target_score: TargetScore = None


class FlipOptions(LossyOptions):
    direction: FlipDirection = Field(description="horizontal or vertical.")
    fmt: OutputFormat = None
    target_score: TargetScore = None


class ImageOcrOptions(QueryOptions):
    languages: OcrLanguages = DEFAULT_LANGUAGES
