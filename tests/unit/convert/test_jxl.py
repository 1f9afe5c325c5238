"""JPEG XL in and out, checked with Debian's libjxl tools (cjxl, djxl): ours decodes with djxl, cjxl's with us,
and a JPEG recompressed with jpegTranscode comes back bit-exact from djxl."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageStat

from fileapi.convert.detect import detect_type
from fileapi.convert.image import ImageResult, convert_image, crop_image, resize_image, rotate_image
from fileapi.convert.image_io import ImageFormat, open_image
from fileapi.convert.jxl import jxl_size
from fileapi.errors import InvalidInput, TooLarge

needs_djxl = pytest.mark.skipif(shutil.which("djxl") is None, reason="no djxl (apt-get install libjxl-tools)")
needs_cjxl = pytest.mark.skipif(shutil.which("cjxl") is None, reason="no cjxl (apt-get install libjxl-tools)")


def scene(width: int = 160, height: int = 120) -> Image.Image:
    image = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    image.paste((200, 40, 40), (width // 4, height // 4, width // 2, height // 2))
    return image


def saved(image: Image.Image, fmt: str, **options: object) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


def mean_difference(first: Image.Image, second: Image.Image) -> float:
    return sum(ImageStat.Stat(ImageChops.difference(first.convert("RGB"), second.convert("RGB"))).mean) / 3


@needs_djxl
def test_our_jxl_decodes_with_djxl(tmp_path: Path) -> None:
    original = scene()
    result = convert_image(saved(original, "PNG"), to=ImageFormat.JXL)
    assert result.media_type == "image/jxl"
    assert detect_type(result.data).mime == "image/jxl"
    (tmp_path / "ours.jxl").write_bytes(result.data)
    subprocess.run(["djxl", str(tmp_path / "ours.jxl"), str(tmp_path / "ours.png")], check=True, capture_output=True)
    decoded = Image.open(tmp_path / "ours.png")
    assert decoded.size == original.size
    assert mean_difference(decoded, original) < 3


@needs_cjxl
def test_a_cjxl_file_decodes_with_us(tmp_path: Path) -> None:
    original = scene()
    original.save(tmp_path / "scene.png")
    subprocess.run(
        ["cjxl", str(tmp_path / "scene.png"), str(tmp_path / "scene.jxl"), "-d", "0"], check=True, capture_output=True
    )
    jxl = (tmp_path / "scene.jxl").read_bytes()
    assert jxl_size(jxl) == original.size
    back = Image.open(io.BytesIO(convert_image(jxl, to=ImageFormat.PNG).data))
    assert ImageChops.difference(back.convert("RGB"), original).getbbox() is None  # lossless: identical
    assert resize_image(jxl, width=80, height=None).format is ImageFormat.JXL  # the input's format is kept


@needs_djxl
def test_jpeg_transcode_comes_back_bit_exact(tmp_path: Path) -> None:
    exif = Image.Exif()
    exif[0x010F] = "Camera maker"  # metadata comes back too
    jpeg = saved(scene(640, 480), "JPEG", quality=88, exif=exif.tobytes())
    result = convert_image(jpeg, to=ImageFormat.JXL, jpeg_transcode=True)
    assert len(result.data) < len(jpeg)
    (tmp_path / "t.jxl").write_bytes(result.data)
    subprocess.run(["djxl", str(tmp_path / "t.jxl"), str(tmp_path / "back.jpg")], check=True, capture_output=True)
    assert (tmp_path / "back.jpg").read_bytes() == jpeg
    assert Image.open(io.BytesIO(result.data)).size == (640, 480)  # and it decodes with us


def gps_jpeg() -> bytes:
    exif = Image.Exif()
    exif[0x010F] = "SecretMaker"
    exif.get_ifd(0x8825).update({1: "N", 2: (51.0, 30.0, 0.0), 3: "W", 4: (0.0, 7.0, 0.0)})
    return saved(scene(320, 240), "JPEG", quality=90, exif=exif.tobytes())


@pytest.mark.parametrize("target_score", [None, 80.0])
def test_jxl_output_carries_no_exif(target_score: float | None) -> None:
    data = convert_image(gps_jpeg(), to=ImageFormat.JXL, target_score=target_score).data
    assert b"SecretMaker" not in data and b"Exif" not in data
    assert not Image.open(io.BytesIO(data)).getexif()


@pytest.mark.tools
@pytest.mark.skipif(shutil.which("exiftool") is None, reason="exiftool is not installed")
def test_exiftool_finds_no_exif_or_gps_in_our_jxl(tmp_path: Path) -> None:
    (tmp_path / "ours.jxl").write_bytes(convert_image(gps_jpeg(), to=ImageFormat.JXL).data)
    listing = subprocess.run(["exiftool", "-json", "-G", str(tmp_path / "ours.jxl")], capture_output=True, check=True)
    assert not [key for key in json.loads(listing.stdout)[0] if key.startswith(("EXIF:", "GPS:", "XMP:"))]


@pytest.mark.parametrize(
    ("operation", "size"),
    [
        (lambda jpeg: resize_image(jpeg, width=80, height=None, fmt=ImageFormat.JXL), (80, 60)),
        (lambda jpeg: crop_image(jpeg, x=10, y=20, width=100, height=50, fmt=ImageFormat.JXL), (100, 50)),
        (lambda jpeg: rotate_image(jpeg, degrees=90, fmt=ImageFormat.JXL, target_score=80), (240, 320)),
    ],
    ids=["resize", "crop", "rotate"],
)
def test_a_jpegs_new_pixels_encode_as_jxl(operation: Callable[[bytes], ImageResult], size: tuple[int, int]) -> None:
    result = operation(gps_jpeg())  # pixels made from a JPEG, no longer its file: once a crash in the plugin
    assert result.format is ImageFormat.JXL
    assert Image.open(io.BytesIO(result.data)).size == size


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"to": ImageFormat.WEBP}, "to=jxl"),
        ({"to": ImageFormat.JXL, "quality": 80}, "lossless"),
        ({"to": ImageFormat.JXL, "target_score": 80}, "lossless"),
    ],
)
def test_jpeg_transcode_refuses_other_options(options: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        convert_image(saved(scene(), "JPEG"), jpeg_transcode=True, **options)  # type: ignore[arg-type]


def test_jpeg_transcode_needs_a_jpeg() -> None:
    with pytest.raises(InvalidInput, match="not a JPEG"):
        convert_image(saved(scene(), "PNG"), to=ImageFormat.JXL, jpeg_transcode=True)


def _codestream_header(height: int, width: int) -> bytes:
    """A JPEG XL codestream's signature and SizeHeader (not small, 30-bit sides, no ratio)."""
    bits = 0 | (3 << 1) | ((height - 1) << 3)
    position = 33
    bits |= 0 << position  # ratio 0: the width follows
    position += 3
    bits |= (3 << position) | ((width - 1) << (position + 2))
    position += 32
    return b"\xff\x0a" + bits.to_bytes((position + 7) // 8 + 4, "little")


def test_the_size_is_read_from_the_header() -> None:
    assert jxl_size(_codestream_header(1234, 5678)) == (5678, 1234)


def test_a_jxl_over_the_pixel_limit_is_refused_before_decoding() -> None:
    with pytest.raises(TooLarge, match="over the limit"):
        open_image(_codestream_header(100_000, 100_000) + b"\x00" * 64)


def test_a_truncated_jxl_header_is_invalid() -> None:
    with pytest.raises(InvalidInput):
        jxl_size(b"\xff\x0a\x01")
