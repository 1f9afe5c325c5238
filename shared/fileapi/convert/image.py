"""Image operations: convert, resize, compress, crop, rotate, flip, favicon set.

Every operation works on the image as displayed (EXIF orientation applied first) and writes
no EXIF or XMP (so no stale Orientation); the ICC profile is kept. When no output format is
given, the input's format is kept if it is jpeg, png, webp or avif, else PNG.
"""

from __future__ import annotations

import base64
import io
import json
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
from fileapi.errors import InvalidInput

if TYPE_CHECKING:
    from PIL import Image


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


def _check_quality(quality: int | None) -> None:
    if quality is not None and not 1 <= quality <= 100:
        raise InvalidInput(f"quality must be 1..100, not {quality}")


def _output(image: Image.Image, fmt: ImageFormat | None, quality: int | None) -> ImageResult:
    _check_quality(quality)
    target = fmt or source_format(image) or ImageFormat.PNG
    return ImageResult(encode(image, target, quality=quality, icc_profile=icc_of(image)), target)


def _animated(
    data: bytes,
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


def convert_image(data: bytes, *, to: ImageFormat, quality: int | None = None) -> ImageResult:
    """Re-encode as `to` (alpha flattened onto white for JPEG); an animation stays one to WebP or AVIF.

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
        raise InvalidInput("give width, height or both")
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
        return _resample(image, size)
    check_output_size(width, height)
    if fit is Fit.FILL:
        result = _resample(image, (width, height))
    elif fit is Fit.COVER:
        result = _resample(image, (width, height), box=_centred_box(image.size, width / height))
    elif fit is Fit.CONTAIN:
        inner = _resample(image, _scaled(image.size, min(width / source_w, height / source_h)))
        target = fmt or source_format(image) or ImageFormat.PNG
        result = _letterbox(inner, (width, height), transparent=target.has_alpha)
        result.format = image.format
    else:
        factor = (min if fit is Fit.INSIDE else max)(width / source_w, height / source_h)
        size = _scaled(image.size, factor)
        check_output_size(*size)
        result = _resample(image, size)
    result.info.setdefault("icc_profile", image.info.get("icc_profile"))
    result.format = image.format
    return result


def _scaled(size: tuple[int, int], factor: float) -> tuple[int, int]:
    return max(1, round(size[0] * factor)), max(1, round(size[1] * factor))


def _centred_box(size: tuple[int, int], aspect: float) -> tuple[float, float, float, float]:
    """The largest centred region of `size` with the aspect ratio `aspect` (width / height)."""
    width, height = size
    if width / height > aspect:
        inner = height * aspect
        return ((width - inner) / 2, 0.0, (width + inner) / 2, float(height))
    inner = width / aspect
    return (0.0, (height - inner) / 2, float(width), (height + inner) / 2)


REDUCING_GAP = 3.0  # Pillow's reducing_gap: an integer box reduction first when shrinking 3x or more
BAND_ROWS = 64  # output rows resampled at a time (see _banded_resize; bench.image weighs time against memory)
_LANCZOS_SUPPORT = 3.0


def _resample(
    image: Image.Image, size: tuple[int, int], *, box: tuple[float, float, float, float] | None = None
) -> Image.Image:
    from PIL import Image

    if image.mode == "P":
        image = image.convert("RGBA")
    box = box or (0.0, 0.0, float(image.width), float(image.height))
    if image.mode in ("RGB", "L") and BAND_ROWS < size[1] < box[3] - box[1] and size[0] <= box[2] - box[0]:
        resized = _banded_resize(image, size, box)
    else:
        resized = image.resize(size, Image.Resampling.LANCZOS, box=box, reducing_gap=REDUCING_GAP)
    resized.info = dict(image.info)
    resized.format = image.format
    return resized


def _banded_resize(image: Image.Image, size: tuple[int, int], box: tuple[float, float, float, float]) -> Image.Image:
    """`image.resize(size, LANCZOS, box=box, reducing_gap=REDUCING_GAP)` with its horizontal pass first, the
    same pixels (within 1 of 255: Pillow takes a box in single precision), computed BAND_ROWS output rows at a
    time. Pillow's two-pass resample holds an intermediate of the full output width by the rows its vertical
    filter reaches: all of them (3.2 MB for a 24 MP JPEG decoded at 1/4 to 800 px) for the whole image, a
    band's (and its filter's margin) for a band.

    Each band is two one-way resizes: a band in one call is short and wide, and Pillow may then run the
    vertical pass first (fewer pixels), which clips to 8 bits at another step and differs from the whole
    image's result by up to 58 of 255 at sharp edges (text, line art).
    """
    import math

    from PIL import Image

    width, height = size
    factor_x = int((box[2] - box[0]) / width / REDUCING_GAP) or 1
    factor_y = int((box[3] - box[1]) / height / REDUCING_GAP) or 1
    if factor_x > 1 or factor_y > 1:  # Pillow's reduce step, over the same region (Image._get_safe_box)
        support_x = (_LANCZOS_SUPPORT - 0.5) * (box[2] - box[0]) / width
        support_y = (_LANCZOS_SUPPORT - 0.5) * (box[3] - box[1]) / height
        region = (
            max(0, int(box[0] - support_x)),
            max(0, int(box[1] - support_y)),
            min(image.width, math.ceil(box[2] + support_x)),
            min(image.height, math.ceil(box[3] + support_y)),
        )
        image = image.reduce((factor_x, factor_y), box=region)
        box = (
            (box[0] - region[0]) / factor_x,
            (box[1] - region[1]) / factor_y,
            (box[2] - region[0]) / factor_x,
            (box[3] - region[1]) / factor_y,
        )
    image.load()
    resized = Image.new(image.mode, size)
    scale_y = (box[3] - box[1]) / height
    margin = _LANCZOS_SUPPORT * max(scale_y, 1.0) + 1  # source rows a band's filter reaches beyond its box
    for top in range(0, height, BAND_ROWS):
        bottom = min(height, top + BAND_ROWS)
        y0, y1 = box[1] + top * scale_y, box[1] + bottom * scale_y
        first, last = max(0, math.floor(y0 - margin)), min(image.height, math.ceil(y1 + margin))
        # The rows the band needs, copied: over all of their height and no offset Pillow runs only the
        # horizontal pass; over the full width of what that gives, only the vertical pass.
        rows = image.crop((0, first, image.width, last))
        rows = rows.resize((width, last - first), Image.Resampling.LANCZOS, box=(box[0], 0, box[2], last - first))
        band = rows.resize((width, bottom - top), Image.Resampling.LANCZOS, box=(0, y0 - first, width, y1 - first))
        resized.paste(band, (0, top))
        del rows, band  # freed before the next band's copy
    return resized


def _letterbox(image: Image.Image, size: tuple[int, int], *, transparent: bool) -> Image.Image:
    from PIL import Image

    if transparent:
        canvas = Image.new("RGBA", size, (0, 0, 0, 0))
        canvas.paste(image.convert("RGBA"), ((size[0] - image.width) // 2, (size[1] - image.height) // 2))
    else:
        canvas = Image.new("RGB", size, (255, 255, 255))
        rgba = image.convert("RGBA")
        canvas.paste(rgba, ((size[0] - image.width) // 2, (size[1] - image.height) // 2), mask=rgba.getchannel("A"))
    canvas.info = dict(image.info)
    return canvas


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


FAVICON_PNGS = {
    "favicon-16x16.png": 16,
    "favicon-32x32.png": 32,
    "favicon-48x48.png": 48,
    "apple-touch-icon.png": 180,
    "android-chrome-192x192.png": 192,
    "android-chrome-512x512.png": 512,
}
ICO_SIZES = (16, 32, 48)


@dataclass(frozen=True)
class FaviconSet:
    ico: str
    pngs: dict[str, str]
    manifest: str


def favicon_set(data: bytes) -> FaviconSet:
    """favicon.ico (16, 32, 48 px), six square PNGs (FAVICON_PNGS) and a web manifest snippet.

    A non-square image is centred on a transparent square first.
    """
    from PIL import Image

    image = open_image(data).convert("RGBA")
    side = max(image.size)
    square = Image.new("RGBA", (side, side), (0, 0, 0, 0))
    square.paste(image, ((side - image.width) // 2, (side - image.height) // 2))
    pngs = {
        name: base64.b64encode(encode(_resample(square, (size, size)), ImageFormat.PNG)).decode()
        for name, size in FAVICON_PNGS.items()
    }
    ico = io.BytesIO()
    _resample(square, (48, 48)).save(ico, format="ICO", sizes=[(size, size) for size in ICO_SIZES])
    manifest = {
        "icons": [
            {"src": f"/{name}", "sizes": f"{size}x{size}", "type": "image/png"}
            for name, size in FAVICON_PNGS.items()
            if name.startswith("android-chrome")
        ]
    }
    return FaviconSet(ico=base64.b64encode(ico.getvalue()).decode(), pngs=pngs, manifest=json.dumps(manifest, indent=2))
