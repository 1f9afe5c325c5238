"""Image converters on synthetic images: pixels, sizes, orientation, metadata."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image, ImageChops
from PIL.TiffImagePlugin import IFDRational as Fraction

from fileapi.convert.favicons import FAVICON_PNGS, favicon_set
from fileapi.convert.image import (
    Fit,
    compress_image,
    convert_image,
    crop_image,
    flip_image,
    resize_image,
    rotate_image,
)
from fileapi.convert.image_io import ImageFormat, open_image, parse_format
from fileapi.convert.image_metadata import read_metadata, strip_metadata
from fileapi.errors import InvalidInput, TooLarge, UnsupportedFormat
from tests.hostile_files import gif_claiming_65535, jpeg_claiming_65535, png_claiming, webp_claiming

RED, GREEN, BLUE, YELLOW = (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0)


def quadrants(width: int = 200, height: int = 100) -> Image.Image:
    """Top-left red, top-right green, bottom-left blue, bottom-right yellow."""
    image = Image.new("RGB", (width, height))
    half_w, half_h = width // 2, height // 2
    for box, colour in (
        ((0, 0, half_w, half_h), RED),
        ((half_w, 0, width, half_h), GREEN),
        ((0, half_h, half_w, height), BLUE),
        ((half_w, half_h, width, height), YELLOW),
    ):
        image.paste(colour, box)
    return image


def encoded(image: Image.Image, fmt: str = "PNG", **options: object) -> bytes:
    out = io.BytesIO()
    image.save(out, format=fmt, **options)
    return out.getvalue()


def decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def corners(image: Image.Image) -> tuple[tuple[int, ...], ...]:
    """Colours near the four corners: top-left, top-right, bottom-left, bottom-right."""
    rgb = image.convert("RGB")
    w, h = rgb.size
    points = ((w // 8, h // 8), (w - 1 - w // 8, h // 8), (w // 8, h - 1 - h // 8), (w - 1 - w // 8, h - 1 - h // 8))
    return tuple(tuple(round(c / 64) * 64 if c not in (0, 255) else c for c in rgb.getpixel(p)) for p in points)  # type: ignore[union-attr]


def close(actual: tuple[tuple[int, ...], ...], expected: tuple[tuple[int, ...], ...]) -> bool:
    return all(all(abs(a - e) <= 40 for a, e in zip(x, y, strict=True)) for x, y in zip(actual, expected, strict=True))


def with_orientation(image: Image.Image, orientation: int) -> bytes:
    exif = Image.Exif()
    exif[0x0112] = orientation
    return encoded(image, "JPEG", quality=95, exif=exif.tobytes())


PNG = encoded(quadrants())


@pytest.mark.parametrize("fmt", list(ImageFormat))
def test_convert_gives_the_target_format_and_keeps_pixels(fmt: ImageFormat) -> None:
    result = convert_image(PNG, to=fmt)
    image = decoded(result.data)
    assert image.format == {"jpeg": "JPEG", "png": "PNG", "webp": "WEBP", "avif": "AVIF", "jxl": "JXL"}[fmt.value]
    assert result.media_type == f"image/{fmt.value}"
    assert image.size == (200, 100)
    assert close(corners(image), (RED, GREEN, BLUE, YELLOW))


def test_convert_to_jpeg_flattens_alpha_on_white() -> None:
    transparent = Image.new("RGBA", (10, 10), (0, 0, 0, 0))
    image = decoded(convert_image(encoded(transparent), to=ImageFormat.JPEG).data)
    assert image.mode == "RGB"
    assert all(value > 250 for value in image.getpixel((5, 5)))  # type: ignore[union-attr]


def webp_chunks(data: bytes) -> list[bytes]:
    """The RIFF chunk names of a WebP file, in order."""
    names, offset = [], 12
    while offset + 8 <= len(data):
        names.append(data[offset : offset + 4])
        offset += 8 + (int.from_bytes(data[offset + 4 : offset + 8], "little") + 1) // 2 * 2
    return names


def test_an_rgb_jpeg_becomes_a_plain_lossy_webp_and_transparency_stays() -> None:
    # As cwebp writes it: one VP8 chunk, no extended header and no alpha plane to encode.
    assert webp_chunks(convert_image(encoded(quadrants(), "JPEG"), to=ImageFormat.WEBP).data) == [b"VP8 "]
    transparent = Image.new("RGBA", (16, 16), (255, 0, 0, 128))
    assert b"ALPH" in webp_chunks(convert_image(encoded(transparent), to=ImageFormat.WEBP).data)


def test_convert_keeps_the_icc_profile() -> None:
    from PIL import ImageCms

    profile = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    source = encoded(quadrants(), "PNG", icc_profile=profile)
    for fmt in (ImageFormat.JPEG, ImageFormat.WEBP, ImageFormat.PNG):
        assert decoded(convert_image(source, to=fmt).data).info.get("icc_profile") == profile


def test_cmyk_and_16_bit_inputs_convert() -> None:
    cmyk = encoded(Image.new("CMYK", (8, 8), (0, 255, 255, 0)), "JPEG")
    assert close(corners(decoded(convert_image(cmyk, to=ImageFormat.PNG).data)), (RED,) * 4)
    sixteen = encoded(Image.new("I;16", (8, 8), 65535), "PNG")
    assert decoded(convert_image(sixteen, to=ImageFormat.JPEG).data).getpixel((1, 1)) == 255


@pytest.mark.parametrize("transparency", [None, 500])
def test_a_16_bit_grey_png_shrinks_3x_and_more(transparency: int | None) -> None:
    # Pillow's reduction before Lanczos (3x and more) takes no I;16: it was a 500 (the corpus's gray-16-sRGB-tRNS.png)
    ramp = Image.linear_gradient("L").resize((300, 200)).convert("I").point(lambda value: value * 257).convert("I;16")
    source = encoded(ramp, "PNG", **({} if transparency is None else {"transparency": transparency}))
    assert Image.open(io.BytesIO(source)).mode == "I;16"
    for fit in Fit:
        result = decoded(resize_image(source, width=40, height=20, fit=fit).data)
        assert result.mode in ("L", "LA", "RGBA")  # 8 bits (fileapi.convert.pixel_modes); LA: the key; RGBA: bars
        assert (result.width, result.height) in ((40, 20), (40, 27), (30, 20))
        grey = result.convert("L")
        top, bottom = grey.getpixel((grey.width // 2, 0)), grey.getpixel((grey.width // 2, grey.height - 1))
        assert isinstance(top, int) and isinstance(bottom, int)
        assert top < 64 and bottom > 191  # the ramp, dark at the top to light at the bottom


def test_quality_changes_size() -> None:
    photo = Image.effect_noise((256, 256), 64).convert("RGB")
    source = encoded(photo, "PNG")
    low = convert_image(source, to=ImageFormat.JPEG, quality=20).data
    high = convert_image(source, to=ImageFormat.JPEG, quality=95).data
    assert len(low) < len(high)


def test_parse_format() -> None:
    assert parse_format("JPG") is ImageFormat.JPEG
    with pytest.raises(UnsupportedFormat, match="'gif'"):
        parse_format("gif")


@pytest.mark.parametrize(
    ("fit", "size"),
    [
        (Fit.COVER, (100, 100)),
        (Fit.CONTAIN, (100, 100)),
        (Fit.FILL, (100, 100)),
        (Fit.INSIDE, (100, 50)),
        (Fit.OUTSIDE, (200, 100)),
    ],
)
def test_resize_fit_modes_give_exact_sizes(fit: Fit, size: tuple[int, int]) -> None:
    assert decoded(resize_image(PNG, width=100, height=100, fit=fit).data).size == size
    jpeg = resize_image(encoded(quadrants(), "JPEG"), width=100, height=100, fit=fit)
    assert (jpeg.format, decoded(jpeg.data).size) == (ImageFormat.JPEG, size)


def test_resize_cover_crops_centrally() -> None:
    image = decoded(resize_image(PNG, width=100, height=100, fit=Fit.COVER).data)
    assert close(corners(image), (RED, GREEN, BLUE, YELLOW))


def test_resize_contain_pads_transparent_or_white() -> None:
    png = decoded(resize_image(PNG, width=100, height=100, fit=Fit.CONTAIN).data).convert("RGBA")
    assert png.getpixel((50, 2))[3] == 0  # type: ignore[index]
    jpeg = decoded(resize_image(PNG, width=100, height=100, fit=Fit.CONTAIN, fmt=ImageFormat.JPEG).data)
    assert all(value > 245 for value in jpeg.getpixel((50, 2)))  # type: ignore[union-attr]


def test_resize_one_side_keeps_the_aspect_ratio() -> None:
    assert decoded(resize_image(PNG, width=50, height=None).data).size == (50, 25)
    assert decoded(resize_image(PNG, width=None, height=10).data).size == (20, 10)


def test_resize_large_jpeg_uses_dct_scaling_and_stays_right() -> None:
    big = encoded(quadrants(4000, 3000), "JPEG", quality=90)
    result = resize_image(big, width=400, height=None)
    assert result.format is ImageFormat.JPEG
    image = decoded(result.data)
    assert (image.format, image.size) == ("JPEG", (400, 300))
    assert close(corners(image), (RED, GREEN, BLUE, YELLOW))


def test_resize_needs_a_size_and_bounds_the_output() -> None:
    with pytest.raises(InvalidInput, match="width, height or both"):
        resize_image(PNG, width=None, height=None)
    with pytest.raises(TooLarge, match="16383"):
        resize_image(PNG, width=20_000, height=None)


@pytest.mark.parametrize("orientation", range(1, 9))
def test_orientation_is_applied_before_geometry(orientation: int) -> None:
    # GIVEN stored pixels that a viewer transforms by the EXIF orientation into the quadrant image
    inverse = {
        1: [],
        2: [Image.Transpose.FLIP_LEFT_RIGHT],
        3: [Image.Transpose.ROTATE_180],
        4: [Image.Transpose.FLIP_TOP_BOTTOM],
        5: [Image.Transpose.TRANSPOSE],
        6: [Image.Transpose.ROTATE_90],
        7: [Image.Transpose.TRANSVERSE],
        8: [Image.Transpose.ROTATE_270],
    }[orientation]
    stored = quadrants(200, 100)
    for method in inverse:
        stored = stored.transpose(method)
    data = with_orientation(stored, orientation)
    # WHEN it is cropped to its left half as displayed
    result = decoded(crop_image(data, x=0, y=0, width=100, height=100, fmt=ImageFormat.PNG).data)
    # THEN the displayed left half is what comes out, with no stale orientation
    assert close(corners(result), (RED, RED, BLUE, BLUE))
    assert result.getexif().get(0x0112) is None
    assert read_metadata(data).width == 200


def test_crop_outside_the_image_is_invalid() -> None:
    with pytest.raises(InvalidInput, match="outside the 200x100 image"):
        crop_image(PNG, x=150, y=0, width=100, height=10)


def test_rotate_is_clockwise() -> None:
    image = decoded(rotate_image(PNG, degrees=90).data)
    assert image.size == (100, 200)
    assert close(corners(image), (BLUE, RED, YELLOW, GREEN))
    assert close(corners(decoded(rotate_image(PNG, degrees=180).data)), (YELLOW, BLUE, GREEN, RED))
    assert close(corners(decoded(rotate_image(PNG, degrees=270).data)), (GREEN, YELLOW, RED, BLUE))


def test_flip_directions() -> None:
    assert close(corners(decoded(flip_image(PNG, direction="horizontal").data)), (GREEN, RED, YELLOW, BLUE))
    assert close(corners(decoded(flip_image(PNG, direction="vertical").data)), (BLUE, YELLOW, RED, GREEN))


def test_compress_makes_a_photographic_jpeg_smaller() -> None:
    photo = encoded(Image.effect_noise((512, 512), 40).convert("RGB").resize((1024, 1024)), "JPEG", quality=95)
    result = compress_image(photo, quality=60)
    assert result.format is ImageFormat.JPEG
    assert len(result.data) < len(photo) * 0.8


def test_compress_never_grows_the_same_format() -> None:
    small = encoded(Image.effect_noise((64, 64), 60).convert("RGB"), "JPEG", quality=10, optimize=True)
    assert compress_image(small, quality=100).data == small


def test_compress_png_palette_quantisation() -> None:
    result = compress_image(PNG, quality=80, palette_colors=4)
    assert decoded(result.data).mode == "P"
    with pytest.raises(InvalidInput, match="PNG output only"):
        compress_image(PNG, quality=80, fmt=ImageFormat.JPEG, palette_colors=4)


def test_favicon_set() -> None:
    result = favicon_set(PNG)

    for name, size in FAVICON_PNGS.items():
        image = decoded(result.pngs[name])
        assert image.size == (size, size)
        assert image.convert("RGBA").getpixel((size // 2, 0))[3] <= 8  # type: ignore[index]  # transparent band
    ico = decoded(result.ico)
    assert ico.format == "ICO"
    assert sorted(ico.info["sizes"]) == [(16, 16), (32, 32), (48, 48)]
    manifest = json.loads(result.manifest)
    assert {icon["sizes"] for icon in manifest["icons"]} == {"192x192", "512x512"}


def test_a_favicon_set_of_a_thin_image_is_scaled_before_it_is_squared() -> None:
    # squaring the 1x16,000 line first built a 16,000x16,000 canvas (+1.6 GiB, 11.6 s)
    from PIL import Image

    line = Image.new("RGB", (1, 16_000), (200, 30, 30))
    result = favicon_set(encoded(line, "PNG"))
    largest = decoded(result.pngs["android-chrome-512x512.png"]).convert("RGBA")
    assert largest.size == (512, 512)
    middle = [largest.getpixel((x, 256)) for x in range(250, 262)]
    assert any(pixel[3] > 128 and pixel[0] > 150 for pixel in middle)  # type: ignore[index]  # the line, centred
    assert largest.getpixel((10, 256))[3] == 0  # type: ignore[index]  # transparent beside it
    assert sorted(decoded(result.ico).info["sizes"]) == [(16, 16), (32, 32), (48, 48)]


def test_not_an_image_is_unsupported_and_truncated_is_invalid() -> None:
    with pytest.raises(UnsupportedFormat):
        open_image(b"%PDF-1.7 not an image")
    with pytest.raises(InvalidInput, match="truncated or corrupt"):
        open_image(encoded(quadrants(), "JPEG")[:400])
    with pytest.raises(InvalidInput, match="empty"):
        open_image(b"")


@pytest.mark.parametrize(
    ("bomb", "size"),
    [(png_claiming(100_000, 100_000), "100000x100000"), (jpeg_claiming_65535(), "65535x65535"),
     (gif_claiming_65535(), "65535x65535"), (webp_claiming(100_000, 100_000), "100000x100000")],
    ids=["png", "jpeg", "gif", "webp"],
)  # fmt: skip
def test_every_format_claiming_too_many_pixels_is_too_large_before_decoding(bomb: bytes, size: str) -> None:
    with pytest.raises(TooLarge, match=size):
        open_image(bomb)


def gps_jpeg(lat: float, lon: float, altitude: float) -> bytes:
    def dms(value: float) -> tuple[Fraction, Fraction, Fraction]:
        value = abs(value)
        degrees = int(value)
        minutes = int((value - degrees) * 60)
        seconds = round((value - degrees - minutes / 60) * 3600 * 1000)
        return (Fraction(degrees), Fraction(minutes), Fraction(seconds, 1000))

    exif = Image.Exif()
    exif[0x010F] = "TestMake"
    exif[0x0110] = "TestModel"
    exif[0x0112] = 1
    details = exif.get_ifd(0x8769)
    details[0x9003] = "2024:05:01 12:30:00"
    details[0x9011] = "+02:00"
    details[0xA434] = "TestLens 50mm"
    details[0x829A] = Fraction(1, 250)
    gps = exif.get_ifd(0x8825)
    gps[1] = "S" if lat < 0 else "N"
    gps[2] = dms(lat)
    gps[3] = "W" if lon < 0 else "E"
    gps[4] = dms(lon)
    gps[5] = b"\x01" if altitude < 0 else b"\x00"
    gps[6] = Fraction(abs(round(altitude * 100)), 100)
    return encoded(quadrants(), "JPEG", exif=exif.tobytes())


@pytest.mark.parametrize(
    ("lat", "lon", "alt"), [(48.8583, 2.2945, 35.5), (-33.8568, 151.2153, -4.25), (40.6892, -74.0445, 0.0)]
)
def test_read_metadata_gps_signs_and_camera(lat: float, lon: float, alt: float) -> None:
    meta = read_metadata(gps_jpeg(lat, lon, alt)).as_json()
    assert meta["gps"]["latitude"] == pytest.approx(lat, abs=1e-5)
    assert meta["gps"]["longitude"] == pytest.approx(lon, abs=1e-5)
    assert meta["gps"]["altitude"] == pytest.approx(alt, abs=0.01)
    assert meta["camera"] == {"make": "TestMake", "model": "TestModel", "lens": "TestLens 50mm"}
    assert meta["takenAt"] == "2024-05-01T12:30:00+02:00"
    assert meta["exif"]["ExposureTime"] == pytest.approx(0.004)
    json.dumps(meta)  # JSON-safe


def jpeg_scan(data: bytes) -> bytes:
    return data[data.index(b"\xff\xda") :]


def test_strip_jpeg_keeps_scan_data_byte_identical() -> None:
    source = gps_jpeg(1.0, 2.0, 3.0)
    stripped, media_type = strip_metadata(source)
    assert media_type == "image/jpeg"
    assert jpeg_scan(stripped) == jpeg_scan(source)
    assert b"Exif" not in stripped and b"TestMake" not in stripped
    assert read_metadata(stripped).gps is None
    assert not ImageChops.difference(decoded(stripped).convert("RGB"), decoded(source).convert("RGB")).getbbox()


def test_strip_jpeg_leaves_no_metadata_after_the_first_scan() -> None:
    """exiftool stops at the first scan; the bytes after it are not the image's to keep: an MPO's other image (its
    own EXIF and GPS) after the first EOI, and APPn and COM segments between a progressive JPEG's scans."""
    exif = Image.Exif()
    exif[0x010F] = "SecretCam"
    mpo = io.BytesIO()
    quadrants().save(mpo, "MPO", save_all=True, append_images=[quadrants()], exif=exif.tobytes())
    progressive = encoded(quadrants(), "JPEG", progressive=True)
    second_scan = progressive.index(b"\xff\xda", progressive.index(b"\xff\xda") + 2)
    xmp = b"http://ns.adobe.com/xap/1.0/\x00<x:xmpmeta>SecretPlace</x:xmpmeta>"
    between = b"\xff\xfe\x00\x0cSecretNote" + b"\xff\xe1" + (len(xmp) + 2).to_bytes(2, "big") + xmp
    progressive = progressive[:second_scan] + between + progressive[second_scan:]
    for source in (mpo.getvalue(), progressive):
        stripped, _ = strip_metadata(source)
        assert b"Secret" not in stripped and b"Exif" not in stripped
        assert stripped.endswith(b"\xff\xd9") and stripped.count(b"\xff\xd9") == 1
        assert not ImageChops.difference(decoded(stripped).convert("RGB"), decoded(source).convert("RGB")).getbbox()
    scans = jpeg_scan(strip_metadata(progressive)[0])
    assert scans == jpeg_scan(progressive).replace(between, b"")  # the scans byte for byte, only those segments gone


def test_strip_jpeg_keeps_orientation_and_icc() -> None:
    from PIL import ImageCms

    profile = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    exif = Image.Exif()
    exif[0x0112] = 6
    exif[0x010F] = "Secret"
    source = encoded(quadrants(), "JPEG", exif=exif.tobytes(), icc_profile=profile)
    stripped, _ = strip_metadata(source)
    image = decoded(stripped)
    assert image.getexif() == {0x0112: 6}
    assert image.info["icc_profile"] == profile
    assert b"Secret" not in stripped


def test_strip_png_drops_text_and_exif_chunks() -> None:
    from PIL import PngImagePlugin

    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "secret")
    info.add_itxt("XML:com.adobe.xmp", "<x:xmpmeta>secret</x:xmpmeta>")
    exif = Image.Exif()
    exif[0x010F] = "secret"
    source = encoded(quadrants(), "PNG", pnginfo=info, exif=exif.tobytes())
    stripped, media_type = strip_metadata(source)
    assert media_type == "image/png"
    assert b"secret" not in stripped
    assert decoded(stripped).tobytes() == decoded(source).tobytes()


def test_strip_webp_drops_exif_and_xmp_and_fixes_flags() -> None:
    exif = Image.Exif()
    exif[0x010F] = "secret"
    source = encoded(quadrants(), "WEBP", exif=exif.tobytes(), xmp=b"<x:xmpmeta>secret</x:xmpmeta>", lossless=True)
    stripped, media_type = strip_metadata(source)
    assert media_type == "image/webp"
    assert b"secret" not in stripped
    assert stripped[20] & 0x0C == 0  # VP8X flags: no EXIF, no XMP
    assert decoded(stripped).tobytes() == decoded(source).tobytes()


def test_strip_refuses_formats_it_cannot_strip_losslessly() -> None:
    with pytest.raises(UnsupportedFormat, match="JPEG, PNG and WebP"):
        strip_metadata(encoded(quadrants(), "GIF"))


@pytest.mark.tools
@pytest.mark.skipif(shutil.which("exiftool") is None, reason="exiftool is not installed")
def test_exiftool_agrees_on_gps_and_finds_nothing_after_strip(tmp_path: Path) -> None:
    source = tmp_path / "gps.jpg"
    source.write_bytes(gps_jpeg(-33.8568, 151.2153, -4.25))
    found = json.loads(subprocess.run(["exiftool", "-json", "-n", str(source)], capture_output=True, check=True).stdout)
    meta = read_metadata(source.read_bytes()).as_json()
    assert found[0]["GPSLatitude"] == pytest.approx(meta["gps"]["latitude"], abs=1e-5)
    assert found[0]["GPSLongitude"] == pytest.approx(meta["gps"]["longitude"], abs=1e-5)
    stripped = tmp_path / "stripped.jpg"
    stripped.write_bytes(strip_metadata(source.read_bytes())[0])
    listing = subprocess.run(["exiftool", "-json", "-G", str(stripped)], capture_output=True, check=True)
    after = json.loads(listing.stdout)
    assert not any(key.startswith(("EXIF:", "XMP:", "IPTC:", "GPS:")) for key in after[0])


@pytest.mark.tools
@pytest.mark.skipif(shutil.which("identify") is None, reason="ImageMagick is not installed")
@pytest.mark.parametrize("fmt", [ImageFormat.JPEG, ImageFormat.PNG, ImageFormat.WEBP])
def test_imagemagick_identifies_the_output(fmt: ImageFormat, tmp_path: Path) -> None:
    path = tmp_path / f"out.{fmt.value}"
    path.write_bytes(resize_image(PNG, width=64, height=48, fit=Fit.FILL, fmt=fmt).data)
    command = ["identify", "-format", "%m %w %h", str(path)]
    described = subprocess.run(command, capture_output=True, text=True, check=True)
    assert described.stdout.split() == [fmt.value.upper(), "64", "48"]


@pytest.mark.parametrize("fmt", ["PNG", "WEBP", "AVIF", "HEIF"])
def test_read_metadata_in_other_containers(fmt: str) -> None:
    import pillow_heif

    pillow_heif.register_heif_opener()
    exif = Image.Exif()
    exif[0x010F] = "ContainerMake"
    exif[0x0112] = 6
    data = encoded(quadrants(), fmt, exif=exif.tobytes())
    meta = read_metadata(data)
    assert meta.camera == {"make": "ContainerMake"}
    assert (meta.width, meta.height) == (100, 200)  # displayed: orientation 6 turns it upright
