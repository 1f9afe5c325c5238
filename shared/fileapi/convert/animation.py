"""Animated GIF and WebP: every frame through an operation, re-encoded with its durations and loop count.

An animation is kept when the output format can hold one (WebP, AVIF; an animated GIF given no output
format becomes an animated WebP, since GIF is not an output format). To JPEG or PNG the first frame is
written and the result says so (the API's `X-Animation: first-frame` header). The frames of an
animation count together against the pixel limits: frames x width x height <= 50 megapixels in, and
the same for the result.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from fileapi.convert import payload
from fileapi.convert.image_io import (
    MAX_INPUT_PIXELS,
    MAX_OUTPUT_PIXELS,
    ImageFormat,
    check_output_size,
    load_pillow,
    save_image,
    save_options,
)
from fileapi.errors import TooLarge

if TYPE_CHECKING:
    from PIL import Image

    from fileapi.convert.image_decode import Source

ANIMATED_INPUTS = {"GIF": ImageFormat.WEBP, "WEBP": ImageFormat.WEBP}  # input -> default output
ANIMATED_OUTPUTS = frozenset({ImageFormat.WEBP, ImageFormat.AVIF})


class AnimationOutcome(StrEnum):
    """What became of an animated input (the value of the X-Animation header)."""

    KEPT = "kept"  # every frame, with its duration, and the loop count
    FIRST_FRAME = "first-frame"  # the output format has no animation: its first frame only


@dataclass(frozen=True)
class AnimationReport:
    outcome: AnimationOutcome
    frames: int  # frames of the input


@dataclass
class Animation:
    """An opened (not yet decoded) animated image."""

    image: Image.Image
    frames: int

    @property
    def default_output(self) -> ImageFormat:
        return ANIMATED_INPUTS[self.image.format or ""]

    def report(self, outcome: AnimationOutcome) -> AnimationReport:
        return AnimationReport(outcome, self.frames)


def open_animation(data: Source) -> Animation | None:
    """The animation in `data` (bytes or a file) when it is an animated GIF or WebP (None for anything else,
    including files no decoder reads: the still-image path gives their errors).

    :raises TooLarge: frames x pixels over the input limit.
    """
    from fileapi.convert.image_decode import DECODE_ERRORS, head, identify
    from fileapi.errors import ApiError

    start = head(data, 12)
    if start[:3] != b"GIF" and not (start[:4] == b"RIFF" and start[8:12] == b"WEBP"):
        return None  # the only animated inputs: no need to open anything else twice
    load_pillow()
    unreadable: tuple[type[BaseException], ...] = (ApiError, *DECODE_ERRORS)
    try:
        image = identify(data)
        if image.format not in ANIMATED_INPUTS or not getattr(image, "is_animated", False):
            return None
        frames = int(getattr(image, "n_frames", 1))
    except unreadable:
        return None
    width, height = image.size
    if frames * width * height > MAX_INPUT_PIXELS:
        raise TooLarge(
            f"the animation is {frames} frames of {width}x{height} = {frames * width * height:,} pixels, "
            f"over the limit of {MAX_INPUT_PIXELS:,} pixels (frames count together)"
        )
    return Animation(image, frames)


def transform(
    animation: Animation,
    operation: Callable[[Image.Image], Image.Image],
    fmt: ImageFormat,
    *,
    quality: int | None,
) -> bytes:
    """Every frame of `animation` through `operation`, encoded as an animated `fmt` (WebP or AVIF) with
    each frame's duration and the loop count (a GIF without a loop count plays once).

    :raises TooLarge: the result's frames x pixels over the output limit, or over the response limit.
    :raises InvalidInput: a frame that cannot be decoded.
    """
    from fileapi.convert.image_decode import DECODE_ERRORS, corrupt

    image = animation.image
    name = "GIF" if image.format == "GIF" else "WebP"
    frames: list[Image.Image] = []
    durations: list[int] = []
    for index in range(animation.frames):
        try:
            image.seek(index)
            frame = image.convert("RGBA")
        except DECODE_ERRORS as exc:
            raise corrupt(name, exc) from None
        frame.format = image.format
        result = operation(frame)
        if index == 0:
            total = result.width * result.height * animation.frames
            if total > MAX_OUTPUT_PIXELS:
                raise TooLarge(
                    f"the result would be {animation.frames} frames of {result.width}x{result.height} = "
                    f"{total:,} pixels, over the limit of {MAX_OUTPUT_PIXELS:,} pixels (frames count together)"
                )
            check_output_size(result.width, result.height)
        frames.append(result)
        durations.append(int(image.info.get("duration") or 0))
    loop = image.info.get("loop")
    options = save_options(frames[0], fmt, quality, None)
    options.update(save_all=True, append_images=frames[1:], duration=durations, loop=1 if loop is None else loop)
    data = save_image(frames[0], fmt, options)
    payload.check(
        f"the animated {fmt.value.upper()} image",
        len(data),
        hint=f"a smaller result would fit: fewer pixels a frame ({animation.frames} frames) or a lower quality",
    )
    return data
