"""Image operations: convert, resize, compress, crop, rotate, flip (favicon sets: convert.favicons).

Every operation works on the image as displayed (EXIF orientation applied first) and writes
no EXIF or XMP (so no stale Orientation); the ICC profile is kept. When no output format is
given, the input's format is kept if it is jpeg, png, webp or avif, else PNG.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import IntEnum, StrEnum
from typing import TYPE_CHECKING

from fileapi.convert.animation import ANIMATED_OUTPUTS, AnimationOutcome, AnimationReport, open_animation, transform
from fileapi.convert.image_io import (
    ImageFormat,
    check_output_size,
    encode,
    icc_of,
    open_image,
    source_format,
)
from fileapi.convert.resampling import centred_box, letterbox, resample, scaled
from fileapi.errors import InvalidInput

# resize_image needs at least one side (fileapi.models.image.ResizeOptions refuses the same, before any work).
RESIZE_SIDES = "give width, height or both"

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
    """Encoded image bytes and their format; `animation` says what became of an animated input."""

    data: bytes
    format: ImageFormat
    animation: AnimationReport | None = None

    @property
    def media_type(self) -> str:
        return self.format.media_type

    def headers(self) -> dict[str, str]:
        """The answer's headers beyond its type: X-Animation and X-Animation-Frames for an animated input (none
        for a still image)."""
        if self.animation is None:
            return {}
        return {"X-Animation": self.animation.outcome.value, "X-Animation-Frames": str(self.animation.frames)}


def _check_quality(quality: int | None) -> None:
    if quality is not None and not 1 <= quality <= 100:
        raise InvalidInput(f"quality must be 1..100, not {quality}")


def _output(image: Image.Image, fmt: ImageFormat | None, quality: int | None) -> ImageResult:
    _check_quality(quality)
    target = fmt or source_format(image) or ImageFormat.PNG
    return ImageResult(encode(image, target, quality=quality, icc_profile=icc_of(image)), target)


def _animated(
    data: Source,
    fmt: ImageFormat | None,
    quality: int | None,
    frame_operation: Callable[[Image.Image], Image.Image],
    still: Callable[[], ImageResult],
) -> ImageResult:
    """`still()` for a still image; for an animated GIF or WebP, every frame through `frame_operation`
    when the output can be animated (WebP or AVIF; the default for an animation is WebP), else
    `still()` (its first frame) marked as such."""
    animation = open_animation(data)
    if animation is None:
        return still()
    target = fmt or animation.default_output
    if target not in ANIMATED_OUTPUTS:
        return replace(still(), animation=animation.report(AnimationOutcome.FIRST_FRAME))
    encoded = transform(animation, frame_operation, target, quality=quality)
    return ImageResult(encoded, target, animation.report(AnimationOutcome.KEPT))


def _unchanged(frame: Image.Image) -> Image.Image:
    return frame


def convert_image(data: Source, *, to: ImageFormat, quality: int | None = None) -> ImageResult:
    """Re-encode `data` (bytes, or an operation's file read on demand: fileapi.convert.image_files) as `to`
    (alpha flattened onto white for JPEG); an animation stays one to WebP or AVIF.

    :param quality: 1..100 (None: the format's default).
    """
    _check_quality(quality)
    return _animated(data, to, quality, _unchanged, lambda: _output(open_image(data), to, quality))


def resize_image(
    data: bytes,
    *,
    width: int | None,
    height: int | None,
    fit: Fit = Fit.COVER,
    fmt: ImageFormat | None = None,
    quality: int | None = None,
) -> ImageResult:
    """Resize to `width` x `height` pixels by `fit`; with one of them, the other keeps the aspect ratio.

    High-quality Lanczos resampling; JPEG inputs are first reduced by the decoder's DCT scaling
    when shrinking by 2x or more. Upscaling is allowed up to the output bounds (16383 px a side,
    50 megapixels).

    :raises InvalidInput: neither width nor height, or a value < 1.
    """
    if width is None and height is None:
        raise InvalidInput(RESIZE_SIDES)
    for name, value in (("width", width), ("height", height)):
        if value is not None and value < 1:
            raise InvalidInput(f"{name} must be >= 1, not {value}")
    _check_quality(quality)

    def still() -> ImageResult:
        result = _resized(open_image(data, shrink_to=(width, height)), width, height, fit, fmt)
        return _output(result, fmt, quality)  # the decoded source is freed before encoding

    return _animated(data, fmt, quality, lambda frame: _resized(frame, width, height, fit, fmt), still)


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
    data: bytes, *, quality: int, fmt: ImageFormat | None = None, palette_colors: int | None = None
) -> ImageResult:
    """Re-encode at `quality` to make the file smaller.

    PNG output is lossless (optimised) unless `palette_colors` (2..256) asks for quantisation.
    When the result in the input's own format is not smaller than the input, the input is
    returned unchanged.
    """
    _check_quality(quality)
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
        encoded = encode(image, target, quality=quality, icc_profile=icc_of(image), palette_colors=palette_colors)
        if target is same and len(encoded) >= len(data):
            return ImageResult(data, target)
        return ImageResult(encoded, target)

    if palette_colors is not None:
        return still()
    result = _animated(data, fmt, quality, _unchanged, still)
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
) -> ImageResult:
    """Cut the rectangle at (`x`, `y`) of `width` x `height` displayed pixels.

    :raises InvalidInput: a rectangle not wholly inside the image.
    """
    if x < 0 or y < 0 or width < 1 or height < 1:
        raise InvalidInput(f"the rectangle needs x, y >= 0 and width, height >= 1 (got {x},{y} {width}x{height})")
    _check_quality(quality)

    def cut(image: Image.Image) -> Image.Image:
        if x + width > image.width or y + height > image.height:
            raise InvalidInput(
                f"the rectangle {x},{y} {width}x{height} is outside the {image.width}x{image.height} image"
            )
        cropped = image.crop((x, y, x + width, y + height))
        cropped.info = dict(image.info)
        cropped.format = image.format
        return cropped

    return _animated(data, fmt, quality, cut, lambda: _output(cut(open_image(data)), fmt, quality))


def rotate_image(data: bytes, *, degrees: int, fmt: ImageFormat | None = None) -> ImageResult:
    """Rotate clockwise by 90, 180 or 270 degrees."""
    from PIL import Image

    transposes = {90: Image.Transpose.ROTATE_270, 180: Image.Transpose.ROTATE_180, 270: Image.Transpose.ROTATE_90}
    if degrees not in transposes:
        raise InvalidInput(f"degrees must be 90, 180 or 270, not {degrees}")
    return _transposed(data, transposes[degrees], fmt)


def flip_image(data: bytes, *, direction: str, fmt: ImageFormat | None = None) -> ImageResult:
    """Mirror: 'horizontal' swaps left and right, 'vertical' swaps top and bottom."""
    from PIL import Image

    transposes = {"horizontal": Image.Transpose.FLIP_LEFT_RIGHT, "vertical": Image.Transpose.FLIP_TOP_BOTTOM}
    if direction not in transposes:
        raise InvalidInput(f"direction must be horizontal or vertical, not {direction!r}")
    return _transposed(data, transposes[direction], fmt)


def _transposed(data: bytes, method: Image.Transpose, fmt: ImageFormat | None) -> ImageResult:
    def turn(image: Image.Image) -> Image.Image:
        result = image.transpose(method)
        result.info = dict(image.info)
        result.format = image.format
        return result

    return _animated(data, fmt, None, turn, lambda: _output(turn(open_image(data)), fmt, None))
