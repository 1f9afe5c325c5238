"""Image operations: convert, resize, compress, crop, rotate, flip (favicon sets: convert.favicons).

Every operation works on the image as displayed (EXIF orientation applied first) and writes
no EXIF or XMP (so no stale Orientation); the ICC profile is kept (JPEG XL: the pixels are converted
to sRGB from it). When no output format is given, the input's format is kept if it is jpeg, png,
webp, avif or jxl, else PNG. Every lossy output takes a `target_score` (SSIMULACRA2, 30..95) instead
of a quality: the quality is then chosen per image (fileapi.convert.quality_search).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import IntEnum, StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from fileapi.convert.animation import ANIMATED_OUTPUTS, AnimationOutcome, AnimationReport, open_animation, transform
from fileapi.convert.image_io import (
    ImageFormat,
    check_output_size,
    encode,
    icc_of,
    open_image,
    prepare_for,
    source_format,
)
from fileapi.convert.quality_options import check_target_score
from fileapi.convert.quality_search import encode_to_score, search_quality
from fileapi.convert.resampling import centred_box, letterbox, resample, scaled
from fileapi.errors import InvalidInput

# resize_image needs at least one side (fileapi.models.image.ResizeOptions refuses the same, before any work).
RESIZE_SIDES = "give width, height or both"
# compress_image needs a quality or a target score (fileapi.models.image.CompressOptions refuses the same).
COMPRESS_QUALITY = "give quality (1-100) or targetScore (30-95)"

if TYPE_CHECKING:
    from PIL import Image

    from fileapi.convert.image_decode import Source


class Rotation(IntEnum):
    """Clockwise rotations."""

    QUARTER = 90
    HALF = 180
    THREE_QUARTERS = 270


class FlipDirection(StrEnum):
    """Which way to mirror an image."""

    HORIZONTAL = "horizontal"  # left and right swap
    VERTICAL = "vertical"  # top and bottom swap


class Fit(StrEnum):
    """How a resize fills width x height (the semantics of sharp)."""

    COVER = "cover"  # exactly width x height, cropped centrally
    CONTAIN = "contain"  # exactly width x height, letterboxed (transparent, or white for JPEG)
    FILL = "fill"  # exactly width x height, stretched
    INSIDE = "inside"  # within width x height, aspect kept
    OUTSIDE = "outside"  # covering width x height, aspect kept


@dataclass(frozen=True)
class ImageResult:
    """Encoded image bytes and their format; `animation` says what became of an animated input;
    `quality_score` and `encoder_quality` what a `target_score` search chose."""

    data: bytes
    format: ImageFormat
    animation: AnimationReport | None = None
    quality_score: float | None = None
    encoder_quality: float | None = None  # a whole number but for JPEG XL (QUALITY_STEP)

    @property
    def media_type(self) -> str:
        return self.format.media_type

    def headers(self) -> dict[str, str]:
        """The answer's headers beyond its type: X-Animation and X-Animation-Frames for an animated input,
        X-Quality-Score (SSIMULACRA2, 2 decimals) and X-Encoder-Quality when a target score was given."""
        headers: dict[str, str] = {}
        if self.animation is not None:
            headers["X-Animation"] = self.animation.outcome.value
            headers["X-Animation-Frames"] = str(self.animation.frames)
        if self.quality_score is not None and self.encoder_quality is not None:
            headers["X-Quality-Score"] = f"{self.quality_score:.2f}"
            headers["X-Encoder-Quality"] = f"{self.encoder_quality:g}"
        return headers


def check_quality(quality: int | None) -> None:
    """Refuse a quality out of 1..100 (None: the format's default)."""
    if quality is not None and not 1 <= quality <= 100:
        raise InvalidInput(f"quality must be 1..100, not {quality}")


def _check_options(quality: int | None, target_score: float | None, fmt: ImageFormat | None) -> None:
    check_quality(quality)
    check_target_score(target_score, quality, fmt)


def _output(
    image: Image.Image, fmt: ImageFormat | None, quality: int | None, target_score: float | None = None
) -> ImageResult:
    check_quality(quality)
    target = fmt or source_format(image) or ImageFormat.PNG
    if target_score is None:
        return ImageResult(encode(image, target, quality=quality, icc_profile=icc_of(image)), target)
    check_target_score(target_score, quality, target)
    chosen = encode_to_score(image, target, target_score=target_score, icc_profile=icc_of(image))
    return ImageResult(chosen.data, target, quality_score=chosen.score, encoder_quality=chosen.quality)


def _animated(
    data: Source,
    fmt: ImageFormat | None,
    quality: int | None,
    frame_operation: Callable[[Image.Image], Image.Image],
    still: Callable[[], ImageResult],
    target_score: float | None = None,
) -> ImageResult:
    """`still()` for a still image; for an animated GIF or WebP, every frame through `frame_operation`
    when the output can be animated (WebP or AVIF; the default for an animation is WebP), else
    `still()` (its first frame) marked as such. A `target_score` is searched for on the first frame,
    and its quality used for every frame."""
    animation = open_animation(data)
    if animation is None:
        return still()
    target = fmt or animation.default_output
    if target not in ANIMATED_OUTPUTS:
        return replace(still(), animation=animation.report(AnimationOutcome.FIRST_FRAME))
    score = None
    if target_score is not None:
        animation.image.seek(0)
        first = animation.image.convert("RGBA")
        first.format = animation.image.format
        prepared, _ = prepare_for(frame_operation(first), target, None)
        found, score, _ = search_quality(prepared, target, target_score, icc_profile=None)
        quality = int(found)  # WebP and AVIF, the animated outputs, are searched in whole qualities
    encoded = transform(animation, frame_operation, target, quality=quality)
    report = animation.report(AnimationOutcome.KEPT)
    return ImageResult(encoded, target, report, score, quality if score is not None else None)


def _unchanged(frame: Image.Image) -> Image.Image:
    return frame


def convert_image(
    data: Source,
    *,
    to: ImageFormat,
    quality: int | None = None,
    target_score: float | None = None,
    jpeg_transcode: bool = False,
) -> ImageResult:
    """Re-encode `data` (bytes, or an operation's file read on demand: fileapi.convert.image_files) as `to`
    (alpha flattened onto white for JPEG); an animation stays one to WebP or AVIF.

    :param quality: 1..100 (None: the format's default).
    :param target_score: SSIMULACRA2 30..95 instead of `quality`: the lowest quality reaching it.
    :param jpeg_transcode: for a JPEG to jxl: its lossless recompression (the JPEG's bytes, metadata
        included, come back bit-exact from the JPEG XL decoder), about 20% smaller.
    :raises InvalidInput: quality and target_score together, or jpeg_transcode with either, another
        output than jxl or an input that is not a JPEG.
    """
    _check_options(quality, target_score, to)
    if jpeg_transcode:
        return _transcoded(data, to, quality, target_score)
    return _animated(
        data, to, quality, _unchanged, lambda: _output(open_image(data), to, quality, target_score), target_score
    )


def _transcoded(data: Source, to: ImageFormat, quality: int | None, target_score: float | None) -> ImageResult:
    from fileapi.convert.image_decode import head
    from fileapi.convert.jxl import transcode_jpeg

    if to is not ImageFormat.JXL:
        raise InvalidInput(f"jpegTranscode writes JPEG XL: use to=jxl, not {to.value}")
    if quality is not None or target_score is not None:
        raise InvalidInput("jpegTranscode is lossless: give neither quality nor targetScore with it")
    if head(data, 3) != b"\xff\xd8\xff":
        raise InvalidInput("jpegTranscode recompresses a JPEG: the body is not a JPEG (leave jpegTranscode out)")
    jpeg = data.read_bytes() if isinstance(data, Path) else data
    open_image(jpeg)  # refused as a JPEG would be: size limits, corrupt data
    result = ImageResult(transcode_jpeg(jpeg), ImageFormat.JXL)
    return result


def resize_image(
    data: bytes,
    *,
    width: int | None,
    height: int | None,
    fit: Fit = Fit.COVER,
    fmt: ImageFormat | None = None,
    quality: int | None = None,
    target_score: float | None = None,
) -> ImageResult:
    """Resize to `width` x `height` pixels by `fit`; with one of them, the other keeps the aspect ratio.

    High-quality Lanczos resampling; JPEG inputs are first reduced by the decoder's DCT scaling
    when shrinking by 2x or more. Upscaling is allowed up to the output bounds (16383 px a side,
    50 megapixels).

    :param target_score: SSIMULACRA2 30..95 instead of `quality` (see convert_image).
    :raises InvalidInput: neither width nor height, or a value < 1.
    """
    if width is None and height is None:
        raise InvalidInput(RESIZE_SIDES)
    for name, value in (("width", width), ("height", height)):
        if value is not None and value < 1:
            raise InvalidInput(f"{name} must be >= 1, not {value}")
    _check_options(quality, target_score, fmt)

    def still() -> ImageResult:
        result = _resized(open_image(data, shrink_to=(width, height)), width, height, fit, fmt)
        return _output(result, fmt, quality, target_score)  # the decoded source is freed before encoding

    return _animated(data, fmt, quality, lambda frame: _resized(frame, width, height, fit, fmt), still, target_score)


def _resized(
    image: Image.Image, width: int | None, height: int | None, fit: Fit, fmt: ImageFormat | None
) -> Image.Image:
    source_w, source_h = image.size
    if width is None or height is None:
        scale = (width / source_w) if width is not None else (height / source_h)  # type: ignore[operator]
        size = (width or max(1, round(source_w * scale)), height or max(1, round(source_h * scale)))
        check_output_size(*size)
        return resample(image, size)
    check_output_size(width, height)
    if fit is Fit.FILL:
        result = resample(image, (width, height))
    elif fit is Fit.COVER:
        result = resample(image, (width, height), box=centred_box(image.size, width / height))
    elif fit is Fit.CONTAIN:
        inner = resample(image, scaled(image.size, min(width / source_w, height / source_h)))
        target = fmt or source_format(image) or ImageFormat.PNG
        result = letterbox(inner, (width, height), transparent=target.has_alpha)
        result.format = image.format
    else:
        factor = (min if fit is Fit.INSIDE else max)(width / source_w, height / source_h)
        size = scaled(image.size, factor)
        check_output_size(*size)
        result = resample(image, size)
    result.info.setdefault("icc_profile", image.info.get("icc_profile"))
    result.format = image.format
    return result


def compress_image(
    data: bytes,
    *,
    quality: int | None = None,
    fmt: ImageFormat | None = None,
    palette_colors: int | None = None,
    target_score: float | None = None,
) -> ImageResult:
    """Re-encode at `quality` (1..100), or at the lowest quality reaching `target_score` (SSIMULACRA2
    30..95), to make the file smaller.

    PNG output is lossless (optimised) unless `palette_colors` (2..256) asks for quantisation.
    When the result in the input's own format is not smaller than the input, the input is
    returned unchanged.

    :raises InvalidInput: neither or both of quality and target_score.
    """
    if quality is None and target_score is None:
        raise InvalidInput(COMPRESS_QUALITY)
    _check_options(quality, target_score, fmt)
    if palette_colors is not None and not 2 <= palette_colors <= 256:
        raise InvalidInput(f"colors must be 2..256, not {palette_colors}")
    if palette_colors is not None and fmt not in (None, ImageFormat.PNG):
        raise InvalidInput("colors (palette quantisation) applies to PNG output only")

    def still() -> ImageResult:
        image = open_image(data)
        same = source_format(image)
        target = fmt or same or ImageFormat.PNG
        if palette_colors is not None and target is not ImageFormat.PNG:
            raise InvalidInput("colors (palette quantisation) applies to PNG output only")
        if target_score is not None:
            result = _output(image, target, None, target_score)
        else:
            encoded = encode(image, target, quality=quality, icc_profile=icc_of(image), palette_colors=palette_colors)
            result = ImageResult(encoded, target)
        if target is same and len(result.data) >= len(data):
            return replace(result, data=data)
        return result

    if palette_colors is not None:
        return still()
    result = _animated(data, fmt, quality, _unchanged, still, target_score)
    animated_webp = data[:4] == b"RIFF" and result.format is ImageFormat.WEBP
    if result.animation and result.animation.outcome is AnimationOutcome.KEPT and animated_webp:
        return result if len(result.data) < len(data) else replace(result, data=data)
    return result


def crop_image(
    data: bytes,
    *,
    x: int,
    y: int,
    width: int,
    height: int,
    fmt: ImageFormat | None = None,
    quality: int | None = None,
    target_score: float | None = None,
) -> ImageResult:
    """Cut the rectangle at (`x`, `y`) of `width` x `height` displayed pixels.

    :param target_score: SSIMULACRA2 30..95 instead of `quality` (see convert_image).
    :raises InvalidInput: a rectangle not wholly inside the image.
    """
    if x < 0 or y < 0 or width < 1 or height < 1:
        raise InvalidInput(f"the rectangle needs x, y >= 0 and width, height >= 1 (got {x},{y} {width}x{height})")
    _check_options(quality, target_score, fmt)

    def cut(image: Image.Image) -> Image.Image:
        if x + width > image.width or y + height > image.height:
            raise InvalidInput(
                f"the rectangle {x},{y} {width}x{height} is outside the {image.width}x{image.height} image"
            )
        cropped = image.crop((x, y, x + width, y + height))
        cropped.info = dict(image.info)
        cropped.format = image.format
        return cropped

    return _animated(
        data, fmt, quality, cut, lambda: _output(cut(open_image(data)), fmt, quality, target_score), target_score
    )


def rotate_image(
    data: bytes, *, degrees: int, fmt: ImageFormat | None = None, target_score: float | None = None
) -> ImageResult:
    """Rotate clockwise by 90, 180 or 270 degrees (`target_score`: see convert_image)."""
    from PIL import Image

    transposes = {90: Image.Transpose.ROTATE_270, 180: Image.Transpose.ROTATE_180, 270: Image.Transpose.ROTATE_90}
    if degrees not in transposes:
        raise InvalidInput(f"degrees must be 90, 180 or 270, not {degrees}")
    return _transposed(data, transposes[degrees], fmt, target_score)


def flip_image(
    data: bytes, *, direction: str, fmt: ImageFormat | None = None, target_score: float | None = None
) -> ImageResult:
    """Mirror: 'horizontal' swaps left and right, 'vertical' swaps top and bottom (`target_score`: see
    convert_image)."""
    from PIL import Image

    transposes = {"horizontal": Image.Transpose.FLIP_LEFT_RIGHT, "vertical": Image.Transpose.FLIP_TOP_BOTTOM}
    if direction not in transposes:
        raise InvalidInput(f"direction must be horizontal or vertical, not {direction!r}")
    return _transposed(data, transposes[direction], fmt, target_score)


def _transposed(
    data: bytes, method: Image.Transpose, fmt: ImageFormat | None, target_score: float | None
) -> ImageResult:
    check_target_score(target_score, None, fmt)

    def turn(image: Image.Image) -> Image.Image:
        result = image.transpose(method)
        result.info = dict(image.info)
        result.format = image.format
        return result

    return _animated(
        data, fmt, None, turn, lambda: _output(turn(open_image(data)), fmt, None, target_score), target_score
    )
