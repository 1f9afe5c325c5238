"""QR and barcode generation round trips, validation, colours, and an independent decoder."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest
import resvg_py
import zxingcpp
from PIL import Image, ImageChops

from fileapi.convert.barcodes import (
    generate_barcode,
    gs1_check_digit,
    upca_to_upce,
    upce_to_upca,
    validate_barcode_text,
)
from fileapi.convert.code_reading import DOWNSCALED_MAX_SIDE, DOWNSCALED_MIN_PIXELS, _large_grey_with_vips, read_codes
from fileapi.convert.codes_options import BarcodeFormat, QrOutput
from fileapi.convert.image_io import open_image
from fileapi.convert.pixel_modes import eight_bit
from fileapi.convert.qr import generate_qr
from fileapi.errors import InvalidInput, TooLarge
from tests.hostile_files import jpeg_of_scans, png_claiming

SAMPLES = {
    BarcodeFormat.EAN13: ("400638133393", "4006381333931"),
    BarcodeFormat.EAN8: ("9638507", "96385074"),
    BarcodeFormat.UPCA: ("03600029145", "036000291452"),
    BarcodeFormat.UPCE: ("0123456", "01234565"),
    BarcodeFormat.CODE128: ("Hello-128 é", "Hello-128 é"),
    BarcodeFormat.CODE39: ("CODE 39-$", "CODE 39-$"),
    BarcodeFormat.ITF14: ("1540014128876", "15400141288763"),
    BarcodeFormat.ITF: ("123456", "123456"),
    BarcodeFormat.DATAMATRIX: ("Data Matrix ✓ 日本", "Data Matrix ✓ 日本"),
    BarcodeFormat.PDF417: ("PDF417 text", "PDF417 text"),
    BarcodeFormat.AZTEC: ("Aztec ✓", "Aztec ✓"),
}
# zbarimg's names for the formats it reads (it reads no DataMatrix, PDF417 or Aztec).
ZBAR_NAMES = {
    BarcodeFormat.EAN13: "EAN-13",
    BarcodeFormat.EAN8: "EAN-8",
    BarcodeFormat.UPCA: "UPC-A",
    BarcodeFormat.UPCE: "UPC-E",
    BarcodeFormat.CODE128: "CODE-128",
    BarcodeFormat.CODE39: "CODE-39",
    BarcodeFormat.ITF14: "I2/5",
    BarcodeFormat.ITF: "I2/5",
}


def rasterise(svg: bytes, background: str = "#ffffff") -> bytes:
    return bytes(resvg_py.svg_to_bytes(svg_string=svg.decode(), background=background))


@pytest.mark.parametrize("fmt", list(BarcodeFormat))
def test_every_barcode_format_decodes_back(fmt: BarcodeFormat) -> None:
    text, expected = SAMPLES[fmt]
    svg = generate_barcode(text, fmt, scale=3, height=None if fmt is BarcodeFormat.ITF14 else 60)
    assert svg.startswith(b"<?xml")
    codes = read_codes(rasterise(svg))
    assert [(code.text, code.format) for code in codes] == [(expected, fmt.value)]


@pytest.mark.tools
@pytest.mark.skipif(shutil.which("zbarimg") is None, reason="zbarimg (zbar-tools) is not installed")
@pytest.mark.parametrize("fmt", list(ZBAR_NAMES))
def test_zbarimg_reads_the_linear_codes(fmt: BarcodeFormat, tmp_path: Path) -> None:
    text, expected = SAMPLES[fmt]
    if fmt is BarcodeFormat.CODE128:
        text = expected = "Hello-128"  # zbar does not decode Latin-1 bytes as Latin-1
    path = tmp_path / "code.png"
    path.write_bytes(rasterise(generate_barcode(text, fmt, scale=3)))
    found = subprocess.run(["zbarimg", "--quiet", str(path)], capture_output=True, text=True).stdout.strip()
    name, _, value = found.partition(":")
    # zbar reports UPC-A and UPC-E as the EAN-13 of their 12-digit form
    if fmt is BarcodeFormat.UPCA:
        assert (name, value) == ("EAN-13", "0" + expected)
    elif fmt is BarcodeFormat.UPCE:
        assert (name, value) == ("EAN-13", "0" + upce_to_upca(expected))
    else:
        assert (name, value) == (ZBAR_NAMES[fmt], expected)


def test_barcode_colours_and_height() -> None:
    svg = generate_barcode(
        "400638133393", BarcodeFormat.EAN13, scale=2, height=120, foreground="#ff0000", background="#00ff00"
    )
    image = Image.open(io.BytesIO(rasterise(svg))).convert("RGB")
    colours = {colour for _, colour in image.getcolors(maxcolors=100000)}  # type: ignore[union-attr]
    assert (255, 0, 0) in colours and (0, 255, 0) in colours
    assert image.height > 120
    transparent = generate_barcode("400638133393", BarcodeFormat.EAN13, background="transparent")
    assert b"#FFFFFF" not in transparent and b'fill="#ffffff"' not in transparent


@pytest.mark.parametrize(
    ("text", "fmt", "reason"),
    [
        ("12345", BarcodeFormat.EAN13, "12 digits"),
        ("4006381333932", BarcodeFormat.EAN13, "wrong check digit"),
        ("abcdefghijkl", BarcodeFormat.EAN13, "digits"),
        ("12345", BarcodeFormat.ITF, "even number"),
        ("1234", BarcodeFormat.ITF, "at least 6"),
        ("lower", BarcodeFormat.CODE39, "A-Z"),
        ("日本", BarcodeFormat.CODE128, "Latin-1"),
        ("2123456", BarcodeFormat.UPCE, "starting with 0 or 1"),
        ("01234564", BarcodeFormat.UPCE, "wrong check digit"),
    ],
)
def test_barcode_validation(text: str, fmt: BarcodeFormat, reason: str) -> None:
    with pytest.raises(InvalidInput, match=reason):
        validate_barcode_text(text, fmt)


def test_two_d_capacity_is_a_clear_400() -> None:
    with pytest.raises(InvalidInput, match="datamatrix cannot hold this text"):
        generate_barcode("x" * 4000, BarcodeFormat.DATAMATRIX)


def test_gs1_and_upce_helpers() -> None:
    assert gs1_check_digit("400638133393") == "1"
    assert upce_to_upca("01234565") == "012345000065"
    assert upca_to_upce("012345000065") == "01234565"
    assert upca_to_upce("036000291452") is None


UDI = "[)>\x1e06\x1dP123\x1e\x04"  # ISO 15434: record and group separators, end of transmission


@pytest.mark.parametrize("fmt", [BarcodeFormat.CODE128, BarcodeFormat.DATAMATRIX, BarcodeFormat.PDF417])
def test_control_characters_read_back_as_themselves(fmt: BarcodeFormat) -> None:
    """zxing-cpp's default text shows them as symbols or names (U+241E, "<GS>"): a UDI label's data is its bytes."""
    codes = read_codes(rasterise(generate_barcode(UDI, fmt, scale=3, height=60)))
    assert [(code.text, code.format) for code in codes] == [(UDI, fmt.value)]


@pytest.mark.parametrize("text", ["https://example.com/path?q=1", "Grüße ✓ 日本語", "x", "a\x1db\x00c\x7f"])
def test_qr_round_trips_unicode(text: str) -> None:
    codes = read_codes(generate_qr(text).data, qr_only=True)
    assert [(code.text, code.format) for code in codes] == [(text, "qr_code")]


def test_qr_default_size_makes_a_short_url_about_300_px() -> None:
    assert Image.open(io.BytesIO(generate_qr("https://example.com/abc").data)).size == (297, 297)


def test_qr_svg_and_colours() -> None:
    svg = generate_qr("hello", output=QrOutput.SVG, foreground="#112233", background="#ffeedd").data
    assert (svg.startswith(b"<?xml") and b"#123" in svg) or b"#112233" in svg
    png = Image.open(io.BytesIO(generate_qr("hello", foreground="#ff0000", background="#0000ff").data)).convert("RGB")
    assert {colour for _, colour in png.getcolors()} == {(255, 0, 0), (0, 0, 255)}  # type: ignore[union-attr]
    assert read_codes(rasterise(svg), qr_only=True)[0].text == "hello"


def test_qr_transparent_background() -> None:
    png = Image.open(io.BytesIO(generate_qr("hello", background="transparent").data)).convert("RGBA")
    assert png.getpixel((0, 0))[3] == 0  # type: ignore[index]


def test_qr_reads_inverted_rotated_and_low_contrast_codes() -> None:
    from PIL import ImageOps

    source = Image.open(io.BytesIO(generate_qr("tricky", size=6).data)).convert("L")
    variants = [
        ImageOps.invert(source),
        source.rotate(33, expand=True, fillcolor=255),
        source.point(lambda v: 110 + v * 40 // 255),
    ]
    for variant in variants:
        out = io.BytesIO()
        variant.save(out, "PNG")
        assert read_codes(out.getvalue(), qr_only=True)[0].text == "tricky"


@pytest.mark.parametrize(
    ("kwargs", "error", "reason"),
    [
        ({"text": ""}, InvalidInput, "empty"),
        ({"text": "x", "foreground": "red"}, InvalidInput, "foreground must be a colour"),
        ({"text": "x", "error_correction": "Z"}, InvalidInput, "L, M, Q or H"),
        ({"text": "x" * 3000}, InvalidInput, "at most 2331 bytes"),
        ({"text": "x", "size": 400}, TooLarge, "at most 10000"),
    ],
)
def test_qr_validation(kwargs: dict[str, object], error: type[Exception], reason: str) -> None:
    with pytest.raises(error, match=reason):
        generate_qr(**kwargs)  # type: ignore[arg-type]


def test_no_code_found_is_an_empty_list() -> None:
    out = io.BytesIO()
    Image.effect_noise((200, 200), 30).save(out, "PNG")
    assert read_codes(out.getvalue()) == []


def test_qr_background_with_alpha() -> None:
    png = Image.open(io.BytesIO(generate_qr("hello", background="#ffffff80").data)).convert("RGBA")
    assert png.getpixel((0, 0)) == (255, 255, 255, 128)


def large_scene_with_qr(
    text: str, *, module_px: int, side: tuple[int, int] = (5000, 1200), mode: str = "L", fmt: str = "PNG"
) -> bytes:
    """A white image over DOWNSCALED_MIN_PIXELS (`mode` pixels, saved as `fmt`) with one QR code of `module_px`
    pixels a module."""
    code = Image.open(io.BytesIO(generate_qr(text, size=module_px, margin=4).data)).convert("L")
    scene = Image.new("L", side, 255)
    scene.paste(code, (side[0] // 3, side[1] // 4))
    out = io.BytesIO()
    # 16-bit: white at 65,535 (Pillow's own conversion from L keeps 255, a near black)
    converted = (
        scene.convert("I").point(lambda value: value * 257).convert(mode) if mode == "I;16" else scene.convert(mode)
    )
    converted.save(out, fmt, **({"quality": 95} if fmt == "JPEG" else {}))
    return out.getvalue()


def test_large_image_code_is_found_by_the_downscaled_passes() -> None:
    data = large_scene_with_qr("big code", module_px=12)
    assert Image.open(io.BytesIO(data)).size[0] * 1200 > DOWNSCALED_MIN_PIXELS
    assert [(code.text, code.format) for code in read_codes(data)] == [("big code", "qr_code")]


# 8-bit PNG (grey, RGB, RGBA, palette) and JPEG are decoded to grey by libvips; 16-bit PNG by Pillow.
@pytest.mark.parametrize(
    ("mode", "fmt"), [("L", "PNG"), ("RGB", "PNG"), ("RGBA", "PNG"), ("P", "PNG"), ("I;16", "PNG"), ("RGB", "JPEG")]
)
def test_large_image_code_too_small_for_the_downscaled_passes_is_found_at_full_resolution(mode: str, fmt: str) -> None:
    data = large_scene_with_qr("tiny code", module_px=2, mode=mode, fmt=fmt)  # under a pixel after the 3x reduction
    image = eight_bit(Image.open(io.BytesIO(data))).convert("L")
    factor = -(-max(image.size) // DOWNSCALED_MAX_SIDE)
    assert zxingcpp.read_barcodes(image.reduce(factor)) == []  # what the downscaled passes see
    assert [(code.text, code.format) for code in read_codes(data)] == [("tiny code", "qr_code")]
    assert read_codes(data, qr_only=True)[0].text == "tiny code"


def test_large_image_without_a_code_gives_none() -> None:
    scene = Image.effect_noise((4000, 1500), 30).convert("L")
    out = io.BytesIO()
    scene.save(out, "PNG")
    assert read_codes(out.getvalue()) == []


@pytest.mark.parametrize("fmt", ["PNG", "JPEG"])
def test_large_image_read_by_libvips_is_pillows_grey(fmt: str) -> None:
    scene = Image.merge("RGB", [Image.linear_gradient("L").resize((2500, 2000)).rotate(turn) for turn in (0, 90, 45)])
    out = io.BytesIO()
    scene.save(out, fmt)
    grey = _large_grey_with_vips(out.getvalue())
    assert grey is not None
    expected = Image.open(io.BytesIO(out.getvalue())).convert("L")
    assert grey.image.size == expected.size
    assert sum(ImageChops.difference(grey.image, expected).histogram()[2:]) == 0  # no pixel differs by 2 or more
    assert grey.pixels.tobytes() == grey.image.tobytes()


def test_large_progressive_jpeg_of_too_many_scans_is_refused_before_decoding() -> None:
    with pytest.raises(TooLarge, match="scans"):
        read_codes(jpeg_of_scans(7000, 50_000))


def test_image_over_the_pixel_limit_is_refused_from_its_header() -> None:
    with pytest.raises(TooLarge, match="over the limit of 50,000,000 pixels"):
        read_codes(png_claiming(10_000, 10_000))


def test_large_jpeg_is_read_as_its_exif_orientation_shows_it() -> None:
    code = Image.fromarray(zxingcpp.create_barcode("ROTATED-128", zxingcpp.BarcodeFormat.Code128).to_image(scale=1))
    scene = Image.new("L", (5000, 1200), 255)
    scene.paste(code.resize((code.width * 2, 60), Image.Resampling.NEAREST), (1500, 300))
    exif = Image.Exif()
    exif[0x0112] = 6  # stored turned a quarter, shown upright: only the full-resolution pass (no rotation) reads it
    stored = scene.convert("RGB").transpose(Image.Transpose.ROTATE_90)
    shown, sideways = io.BytesIO(), io.BytesIO()
    stored.save(shown, "JPEG", quality=95, exif=exif)
    stored.save(sideways, "JPEG", quality=95)
    assert read_codes(sideways.getvalue()) == []
    assert [(code.text, code.format) for code in read_codes(shown.getvalue())] == [("ROTATED-128", "code128")]
    assert open_image(shown.getvalue(), grey=True).mode == "L"  # decoded straight to grey
