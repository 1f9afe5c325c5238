"""Resampling: Lanczos resizes (in bands of output rows for large shrinks, to bound the intermediate; through
libvips's vectorised reduce for small even shrinks, such as what is left after a JPEG's DCT scaling), the
centred region of an aspect ratio, and letterboxing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fileapi.convert.pixel_modes import rgb_or_grey

if TYPE_CHECKING:
    from PIL import Image


def scaled(size: tuple[int, int], factor: float) -> tuple[int, int]:
    """`size` times `factor`, each side rounded and at least 1."""
    return max(1, round(size[0] * factor)), max(1, round(size[1] * factor))


def centred_box(size: tuple[int, int], aspect: float) -> tuple[float, float, float, float]:
    """The largest centred region of `size` with the aspect ratio `aspect` (width / height)."""
    width, height = size
    if width / height > aspect:
        inner = height * aspect
        return ((width - inner) / 2, 0.0, (width + inner) / 2, float(height))
    inner = width / aspect
    return (0.0, (height - inner) / 2, float(width), (height + inner) / 2)


REDUCING_GAP = 3.0  # Pillow's reducing_gap: an integer box reduction first when shrinking 3x or more
BAND_ROWS = 64  # output rows resampled at a time (see banded_resize; bench.image weighs time against memory)
# Pillow's whole-image intermediate (output width x source rows) up to this size is not banded: banding a
# 24 MP JPEG decoded at 1/4 (1500 x 1000) to 800 px, a 2.4 MB intermediate, took 118 ms against 80 ms.
BANDED_ABOVE_BYTES = 16 * 1024 * 1024
_LANCZOS_SUPPORT = 3.0
# libvips's 8-bit Lanczos reduce took 4 ms where Pillow's took 20.6 (1500 x 1000 to 800 x 533, a 24 MP JPEG
# decoded at 1/4). Against float64 Lanczos it erred as Pillow did (mean 0.30 of 255 on photographs, 3.0-6.5 on
# black-and-white noise) for shrinks up to 2x whose two sides differ by at most 1.25x; past that ratio, on the
# noise, by up to 2.6x Pillow's (7.3 against 2.8 at 1.05 x 1.99). Pillow does the rest.
VIPS_MAX_SHRINK = 2.0
VIPS_MAX_SKEW = 1.25
VIPS_MAX_SOURCE_BYTES = 16 * 1024 * 1024  # the pixels are copied once into libvips


def resample(
    image: Image.Image, size: tuple[int, int], *, box: tuple[float, float, float, float] | None = None
) -> Image.Image:
    """`image` (the region `box` of it) resized to `size` with Lanczos, its info and format kept."""
    from PIL import Image

    if image.mode == "P":
        image = image.convert("RGBA")
    box = box or (0.0, 0.0, float(image.width), float(image.height))
    intermediate = size[0] * (box[3] - box[1]) * len(image.getbands())
    reduced = vips_reduce(image, size) if box == (0.0, 0.0, float(image.width), float(image.height)) else None
    if reduced is not None:
        resized = reduced
    elif (
        image.mode in ("RGB", "L")
        and intermediate > BANDED_ABOVE_BYTES
        and BAND_ROWS < size[1] < box[3] - box[1]
        and size[0] <= box[2] - box[0]
    ):
        resized = banded_resize(image, size, box)
    else:
        # Pillow's box reduction takes no 16-bit grey ("I;16*": "image has wrong mode"); Lanczos alone keeps its 16 bits
        gap = None if image.mode.startswith("I;16") else REDUCING_GAP
        resized = image.resize(size, Image.Resampling.LANCZOS, box=box, reducing_gap=gap)
    resized.info = dict(image.info)
    resized.format = image.format
    return resized


def vips_reduce(image: Image.Image, size: tuple[int, int]) -> Image.Image | None:
    """`image` (RGB or L) shrunk to `size` by libvips's Lanczos-3 reduce, horizontal pass first; None (for
    Pillow) outside shrinks of 1..VIPS_MAX_SHRINK per side within VIPS_MAX_SKEW of each other, over
    VIPS_MAX_SOURCE_BYTES, or where libvips is not installed."""
    from PIL import Image

    shrink_x, shrink_y = image.width / size[0], image.height / size[1]
    if (
        image.mode not in ("RGB", "L")
        or not (1 <= shrink_x <= VIPS_MAX_SHRINK and 1 <= shrink_y <= VIPS_MAX_SHRINK)
        or max(shrink_x, shrink_y) > VIPS_MAX_SKEW * min(shrink_x, shrink_y)
        or image.width * image.height * len(image.getbands()) > VIPS_MAX_SOURCE_BYTES
    ):
        return None
    from fileapi.convert.image_vips import installed_vips

    pyvips = installed_vips()
    if pyvips is None:  # a build without libvips resamples through Pillow
        return None
    source = pyvips.Image.new_from_memory(image.tobytes(), image.width, image.height, len(image.getbands()), "uchar")
    reduced = source.reduceh(shrink_x, kernel="lanczos3").reducev(shrink_y, kernel="lanczos3")
    if (reduced.width, reduced.height) != size:  # libvips rounds the sides: never here, but Pillow's are exact
        return None
    pixels = reduced.write_to_memory()
    del source, reduced  # the copy of the source pixels is freed before the result is built
    return Image.frombytes(image.mode, size, pixels)


def banded_resize(image: Image.Image, size: tuple[int, int], box: tuple[float, float, float, float]) -> Image.Image:
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


def letterbox(image: Image.Image, size: tuple[int, int], *, transparent: bool) -> Image.Image:
    """`image` centred on a canvas of `size`: transparent, or white with `image`'s alpha applied."""
    from PIL import Image

    image = rgb_or_grey(image)
    if transparent:
        canvas = Image.new("RGBA", size, (0, 0, 0, 0))
        canvas.paste(image.convert("RGBA"), ((size[0] - image.width) // 2, (size[1] - image.height) // 2))
    else:
        canvas = Image.new("RGB", size, (255, 255, 255))
        rgba = image.convert("RGBA")
        canvas.paste(rgba, ((size[0] - image.width) // 2, (size[1] - image.height) // 2), mask=rgba.getchannel("A"))
    canvas.info = dict(image.info)
    return canvas
