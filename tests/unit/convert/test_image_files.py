"""An operation's image conversion from file to file: still PNG and JPEG to WebP or JPEG through libvips, with
the Pillow path's result (pixels, ICC profile, alpha on white); everything else through Pillow."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageCms, ImageStat

from fileapi.convert.image import convert_image
from fileapi.convert.image_files import convert_image_file
from fileapi.convert.image_io import ImageFormat
from fileapi.convert.image_vips import convert_with_vips
from fileapi.errors import InvalidInput

pytest.importorskip("pyvips")
SRGB = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()


def scene(mode: str = "RGB") -> Image.Image:
    image = Image.linear_gradient("L").resize((320, 200)).convert(mode)
    image.paste((200, 40, 40) if mode == "RGB" else (200, 40, 40, 255), (40, 40, 120, 120))
    return image


def mean_difference(first: Image.Image, second: Image.Image) -> float:
    return sum(ImageStat.Stat(ImageChops.difference(first.convert("RGB"), second.convert("RGB"))).mean) / 3


@pytest.mark.parametrize("fmt", [ImageFormat.WEBP, ImageFormat.JPEG])
def test_a_png_goes_through_libvips_with_the_pillow_result(fmt: ImageFormat, tmp_path: Path) -> None:
    scene().save(tmp_path / "in.png", icc_profile=SRGB)
    assert convert_with_vips(tmp_path / "in.png", tmp_path / "vips.out", to=fmt, quality=None)
    ours = Image.open(tmp_path / "vips.out")
    reference = convert_image((tmp_path / "in.png").read_bytes(), to=fmt).data
    (tmp_path / "pillow.out").write_bytes(reference)
    pillow = Image.open(tmp_path / "pillow.out")
    assert ours.format == pillow.format and ours.size == pillow.size
    assert ours.info.get("icc_profile") == SRGB
    assert mean_difference(ours, pillow) < 1.5
    assert not ours.getexif()  # no EXIF written


def test_alpha_is_flattened_on_white_for_jpeg(tmp_path: Path) -> None:
    image = scene("RGBA")
    image.putalpha(0)
    image.save(tmp_path / "clear.png")
    assert convert_image_file(str(tmp_path / "clear.png"), str(tmp_path / "out.jpg"), to=ImageFormat.JPEG) == {}
    assert Image.open(tmp_path / "out.jpg").getpixel((5, 5)) == (255, 255, 255)


def test_a_16_bit_png_is_left_to_pillow(tmp_path: Path) -> None:
    Image.linear_gradient("L").convert("I").point(lambda v: v * 257).convert("I;16").save(tmp_path / "deep.png")
    assert not convert_with_vips(tmp_path / "deep.png", tmp_path / "out.webp", to=ImageFormat.WEBP, quality=None)
    convert_image_file(str(tmp_path / "deep.png"), str(tmp_path / "out.webp"), to=ImageFormat.WEBP)
    bottom = Image.open(tmp_path / "out.webp").convert("RGB").getpixel((0, 255))
    assert isinstance(bottom, tuple) and bottom[0] > 250


def test_a_rotated_jpeg_is_left_to_pillow_and_shown_upright(tmp_path: Path) -> None:
    exif = Image.Exif()
    exif[0x0112] = 6  # stored sideways: shown turned 90 degrees clockwise
    scene().save(tmp_path / "turned.jpg", exif=exif.tobytes())
    assert not convert_with_vips(tmp_path / "turned.jpg", tmp_path / "out.webp", to=ImageFormat.WEBP, quality=None)
    convert_image_file(str(tmp_path / "turned.jpg"), str(tmp_path / "out.webp"), to=ImageFormat.WEBP)
    assert Image.open(tmp_path / "out.webp").size == (200, 320)


def test_a_truncated_png_is_invalid_input(tmp_path: Path) -> None:
    scene().save(tmp_path / "whole.png")
    (tmp_path / "cut.png").write_bytes((tmp_path / "whole.png").read_bytes()[:400])
    with pytest.raises(InvalidInput, match="truncated or corrupt"):
        convert_image_file(str(tmp_path / "cut.png"), str(tmp_path / "out.webp"), to=ImageFormat.WEBP)
    assert not (tmp_path / "out.webp").exists()


def test_a_quality_out_of_range_is_refused(tmp_path: Path) -> None:
    scene().save(tmp_path / "in.png")
    with pytest.raises(InvalidInput, match=r"1\.\.100"):
        convert_image_file(str(tmp_path / "in.png"), str(tmp_path / "out.webp"), to=ImageFormat.WEBP, quality=101)
