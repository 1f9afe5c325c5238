"""The image speed paths give the results of the plain paths: the banded resample (resampling.banded_resize),
libvips's reduce for small even shrinks (resampling.vips_reduce), the in-place orientation of open_image;
a repeated conversion reuses the memory the previous one freed."""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys
from collections.abc import Callable

import pytest
from PIL import Image, ImageChops

from fileapi.convert.image import Fit, resize_image
from fileapi.convert.image_io import open_image
from fileapi.convert.resampling import banded_resize, resample, vips_reduce


def photo(width: int = 1500, height: int = 1000, mode: str = "RGB") -> Image.Image:
    """Smooth gradients with noise, like a photograph (and with sharp edges from the noise)."""
    noise = Image.effect_noise((width, height), 40)
    gradient = Image.linear_gradient("L").resize((width, height))
    return Image.merge("RGB", (noise, gradient, gradient.rotate(90).resize((width, height)))).convert(mode)


def document(width: int = 1500, height: int = 1000, mode: str = "RGB") -> Image.Image:
    """Black and white pixels only, like a scanned page of text: Lanczos rings past 0 and 255 at every edge,
    so a result depends on which pass (horizontal or vertical) is clipped to 8 bits first."""
    return Image.effect_noise((width, height), 100).point(lambda level: 255 if level > 128 else 0).convert(mode)


def two_pass(image: Image.Image, size: tuple[int, int], box: tuple[float, float, float, float]) -> Image.Image:
    """Lanczos over the whole image, the horizontal pass first, then the vertical."""
    rows = image.resize((size[0], image.height), Image.Resampling.LANCZOS, box=(box[0], 0, box[2], image.height))
    return rows.resize(size, Image.Resampling.LANCZOS, box=(0, box[1], size[0], box[3]))


def largest_difference(a: Image.Image, b: Image.Image) -> int:
    extrema = ImageChops.difference(a, b).getextrema()
    return max(high for _, high in extrema) if isinstance(extrema[0], tuple) else int(extrema[1])


@pytest.mark.parametrize("mode", ["RGB", "L"])
@pytest.mark.parametrize("seed", range(6))
def test_banded_resize_is_the_two_pass_lanczos(mode: str, seed: int) -> None:
    rng = random.Random(seed)
    image = photo(mode=mode)
    if seed % 2:
        x0, y0 = rng.uniform(0, 400), rng.uniform(0, 300)
        box = (x0, y0, rng.uniform(x0 + 300, 1500), rng.uniform(y0 + 300, 1000))
    else:
        box = (0.0, 0.0, 1500.0, 1000.0)
    width, height = box[2] - box[0], box[3] - box[1]
    size = (rng.randint(int(width / 3) + 1, int(width * 0.9)), rng.randint(int(height / 3) + 1, int(height * 0.9)))
    banded = banded_resize(image, size, box)
    assert banded.size == size and banded.mode == mode
    # Pillow takes a box in single precision: a band's box rounds differently from the whole one.
    assert largest_difference(banded, two_pass(image, size, box)) <= 1


@pytest.mark.parametrize("size", [(1400, 900), (1200, 800), (1300, 400), (800, 533), (500, 950)])
@pytest.mark.parametrize("picture", [photo, document])
def test_banded_resize_passes_horizontally_first_at_any_shrink(
    picture: Callable[..., Image.Image], size: tuple[int, int]
) -> None:
    # A band is short and wide: resized in one call, Pillow may run its vertical pass first (fewer
    # pixels), and the 8-bit clipping between the passes then differs from the whole image's by up to
    # 58 of 255 at sharp edges.
    image = picture()
    box = (0.0, 0.0, 1500.0, 1000.0)
    assert largest_difference(banded_resize(image, size, box), two_pass(image, size, box)) <= 1


@pytest.mark.parametrize("size", [(800, 533), (400, 267), (150, 100)])
def test_banded_resize_with_the_reduce_step_matches_pillows_resize(size: tuple[int, int]) -> None:
    image = photo(3000, 2000)
    box = (0.0, 0.0, 3000.0, 2000.0)
    banded = banded_resize(image, size, box)
    whole = image.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0)
    assert banded.size == whole.size
    assert largest_difference(banded, whole) <= 2


def mean_difference(a: Image.Image, b: Image.Image) -> float:
    histogram = ImageChops.difference(a, b).convert("L").histogram()
    return sum(level * count for level, count in enumerate(histogram)) / (a.width * a.height)


@pytest.mark.parametrize("mode", ["RGB", "L"])
@pytest.mark.parametrize("size", [(800, 533), (1400, 900), (760, 506), (1000, 700), (1200, 1000)])
def test_vips_reduce_gives_pillows_lanczos(mode: str, size: tuple[int, int]) -> None:
    pytest.importorskip("pyvips")
    for picture, most, mean in ((photo, 6, 0.25), (document, 16, 1.0)):  # of 255; at most 5 and 11 in 240 runs
        image = picture(mode=mode)
        reduced = vips_reduce(image, size)
        assert reduced is not None and reduced.size == size and reduced.mode == mode
        pillow = image.resize(size, Image.Resampling.LANCZOS)
        assert largest_difference(reduced, pillow) <= most
        assert mean_difference(reduced, pillow) <= mean


@pytest.mark.parametrize(
    ("mode", "size"),
    [("RGB", (1600, 1100)), ("RGB", (700, 450)), ("RGB", (1300, 400)), ("RGBA", (800, 533)), ("LA", (800, 533))],
    ids=["enlarged", "over 2x", "skewed", "alpha", "grey alpha"],
)
def test_other_resizes_stay_with_pillow(mode: str, size: tuple[int, int]) -> None:
    image = photo(mode=mode)
    assert vips_reduce(image, size) is None
    expected = image.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0)
    assert largest_difference(resample(image, size), expected) == 0


def test_a_small_even_shrink_resamples_through_vips() -> None:
    pytest.importorskip("pyvips")
    image = photo()  # a 24 MP JPEG decoded at 1/4, to 800 px: the bench's resize
    reduced = vips_reduce(image, (800, 533))
    assert reduced is not None
    assert largest_difference(resample(image, (800, 533)), reduced) == 0


def jpeg(image: Image.Image, **options: object) -> bytes:
    out = io.BytesIO()
    image.save(out, "JPEG", quality=92, **options)
    return out.getvalue()


@pytest.mark.parametrize("fit", list(Fit))
def test_resize_of_a_large_jpeg_keeps_sizes_and_looks_the_same(fit: Fit) -> None:
    source = photo(2400, 1600)
    data = jpeg(source)
    result = Image.open(io.BytesIO(resize_image(data, width=600, height=300, fit=fit).data))
    expected = {Fit.COVER: (600, 300), Fit.CONTAIN: (600, 300), Fit.FILL: (600, 300)}
    expected.update({Fit.INSIDE: (450, 300), Fit.OUTSIDE: (600, 400)})
    assert result.size == expected[fit]
    if fit is Fit.FILL:
        reference = source.resize((600, 300), Image.Resampling.LANCZOS)
        difference = ImageChops.difference(result.convert("RGB"), reference).convert("L")
        mean_difference = sum(difference.histogram()[level] * level for level in range(256)) / (600 * 300)
        assert mean_difference < 4  # JPEG twice and the decoder's DCT scaling, not a different picture


def test_open_image_orients_in_place_and_keeps_the_format() -> None:
    source = photo(300, 200)
    exif = Image.Exif()
    exif[0x0112] = 6  # stored rotated: displayed after a 90 degree clockwise turn
    image = open_image(jpeg(source, exif=exif.tobytes()))
    assert image.size == (200, 300)
    assert image.format == "JPEG"
    upright = open_image(jpeg(source))
    assert upright.size == (300, 200) and upright.format == "JPEG"


# One process converts a 2 MP JPEG once (warm-up), then again, and prints the page faults of the second
# conversion (ru_minflt): with freed memory kept (fileapi.convert.memory_reuse) it needs few new pages.
_FAULTS_SCRIPT = """
import io, resource, sys
from PIL import Image
from fileapi.convert.image import convert_image
from fileapi.convert.image_io import ImageFormat
noise = Image.effect_noise((240, 135), 48).resize((1920, 1080), Image.Resampling.BICUBIC)
photo = Image.merge("RGB", (noise, Image.linear_gradient("L").resize((1920, 1080)), noise))
out = io.BytesIO()
photo.save(out, "JPEG", quality=90)
data = out.getvalue()
convert_image(data, to=ImageFormat(sys.argv[1]))
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
convert_image(data, to=ImageFormat(sys.argv[1]))
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="page-fault counts as Linux keeps them")
@pytest.mark.parametrize("fmt", ["webp", "avif"])
def test_a_repeated_conversion_reuses_the_memory_the_first_freed(fmt: str) -> None:
    # 2 MP as RGBX is 8 MB: 2,000 pages; without reuse the second conversion faults 4,000-11,000 pages.
    out = subprocess.run([sys.executable, "-c", _FAULTS_SCRIPT, fmt], capture_output=True, text=True, check=True)
    assert int(out.stdout) < 1_000, out.stdout


_KEPT_SCRIPT = """
import io, sys
from PIL import Image
from fileapi.convert import memory_reuse
from fileapi.convert.code_reading import read_codes
from fileapi.convert.image import convert_image, resize_image
from fileapi.convert.image_io import ImageFormat
out = io.BytesIO()
Image.new("RGB", (64, 48), (10, 200, 30)).save(out, "PNG")
read_codes(out.getvalue())
resize_image(out.getvalue(), width=32, height=None)
convert_image(out.getvalue(), to=ImageFormat.PNG)
print(memory_reuse._kept)
convert_image(out.getvalue(), to=ImageFormat(sys.argv[1]))
print(memory_reuse._kept)
"""


@pytest.mark.parametrize("fmt", ["webp", "avif"])
def test_only_the_lossy_encoders_keep_freed_memory(fmt: str) -> None:
    # A barcode read, a resize or a PNG leave malloc as it is (a 50 MP barcode read peaked 49 MiB higher with
    # freed memory kept); the first WebP or AVIF encoding switches it on.
    out = subprocess.run([sys.executable, "-c", _KEPT_SCRIPT, fmt], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]
