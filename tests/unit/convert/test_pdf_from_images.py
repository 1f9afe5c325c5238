"""Images to PDF, checked with pdfimages (the embedded bytes and pixels), pdfinfo (page sizes), pdftoppm (what
is drawn) and qpdf --check."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from fileapi.convert.pdf_from_images import MAX_IMAGES, images_to_pdf, images_to_pdf_file
from fileapi.errors import InvalidInput, TooLarge, UnsupportedFormat
from tests.helpers import require_tool
from tests.hostile_files import jpeg_claiming_65535, png_claiming

RED, GREEN, BLUE, YELLOW = (220, 20, 20), (20, 200, 20), (20, 20, 220), (230, 220, 20)


def quadrants(width: int = 120, height: int = 80, mode: str = "RGB") -> Image.Image:
    """Red top left, green top right, blue bottom left, yellow bottom right."""
    image = Image.new("RGB", (width, height))
    for box, colour in [((0, 0), RED), ((width // 2, 0), GREEN), ((0, height // 2), BLUE),
                        ((width // 2, height // 2), YELLOW)]:  # fmt: skip
        image.paste(colour, (*box, box[0] + width // 2, box[1] + height // 2))
    return image.convert(mode)


def encoded(image: Image.Image, fmt: str, **options: object) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


def run(*argv: str) -> str:
    return subprocess.run([require_tool(argv[0]), *argv[1:]], capture_output=True, text=True, check=True).stdout


def written(tmp_path: Path, images: list[bytes], **options: object) -> Path:
    path = tmp_path / "out.pdf"
    path.write_bytes(images_to_pdf(images, **options))  # type: ignore[arg-type]
    assert "No syntax or stream encoding errors" in run("qpdf", "--check", str(path))
    return path


def extracted(tmp_path: Path, pdf: Path, flag: str) -> list[Path]:
    run("pdfimages", flag, str(pdf), str(tmp_path / "x"))
    return sorted(tmp_path.glob("x-*"))


def rendered(tmp_path: Path, pdf: Path, page: int = 1, dpi: int = 72) -> Image.Image:
    run("pdftoppm", "-r", str(dpi), "-f", str(page), "-l", str(page), "-png", "-singlefile", str(pdf),
        str(tmp_path / "r"))  # fmt: skip
    return Image.open(tmp_path / "r.png").convert("RGB")


def close(pixel: object, colour: tuple[int, int, int], tolerance: int = 40) -> bool:
    assert isinstance(pixel, tuple)
    return all(abs(a - b) <= tolerance for a, b in zip(pixel[:3], colour, strict=True))


def page_sizes(pdf: Path) -> list[str]:
    out = run("pdfinfo", "-f", "1", "-l", "999", str(pdf))
    return [line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("Page") and "size" in line]


@pytest.mark.tools
def test_a_jpeg_goes_in_byte_for_byte(tmp_path: Path) -> None:
    jpeg = encoded(quadrants(), "JPEG", quality=90, dpi=(144, 144))
    pdf = written(tmp_path, [jpeg])
    [out] = extracted(tmp_path, pdf, "-j")
    assert out.suffix == ".jpg" and out.read_bytes() == jpeg
    assert page_sizes(pdf) == ["60 x 40 pts"]


@pytest.mark.tools
@pytest.mark.parametrize("orientation", range(1, 9))
def test_an_exif_orientation_turns_the_drawing_not_the_bytes(tmp_path: Path, orientation: int) -> None:
    from PIL import ImageOps

    exif = Image.Exif()
    exif[0x0112] = orientation
    jpeg = encoded(quadrants(), "JPEG", quality=95, exif=exif.tobytes(), dpi=(96, 96))
    pdf = written(tmp_path, [jpeg])
    [out] = extracted(tmp_path, pdf, "-j")
    assert out.read_bytes() == jpeg
    expected = ImageOps.exif_transpose(Image.open(io.BytesIO(jpeg))).convert("RGB")
    page = rendered(tmp_path, pdf, dpi=96)  # the image's own size
    assert page.size == expected.size
    for x, y in [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)]:
        point = (int(x * page.width), int(y * page.height))
        assert close(page.getpixel(point), expected.getpixel(point)), (orientation, point)  # type: ignore[arg-type]


@pytest.mark.tools
def test_an_adobe_cmyk_jpeg_keeps_its_colours(tmp_path: Path) -> None:
    jpeg = encoded(quadrants(mode="CMYK"), "JPEG", quality=95)
    pdf = written(tmp_path, [jpeg])
    page = rendered(tmp_path, pdf, dpi=96)
    assert close(page.getpixel((15, 10)), RED, 60) and close(page.getpixel((100, 70)), YELLOW, 60)


@pytest.mark.tools
def test_a_jpeg_2000_goes_in_byte_for_byte(tmp_path: Path) -> None:
    jp2 = encoded(quadrants(), "JPEG2000")
    pdf = written(tmp_path, [jp2])
    [out] = extracted(tmp_path, pdf, "-jp2")
    assert out.read_bytes() == jp2
    assert close(rendered(tmp_path, pdf, dpi=96).getpixel((100, 70)), YELLOW)


@pytest.mark.tools
@pytest.mark.parametrize(
    ("image", "options"),
    [
        (quadrants(), {}),
        (quadrants(mode="L"), {}),
        (quadrants().quantize(8), {}),
        (quadrants(mode="1"), {}),
        (Image.linear_gradient("L").resize((120, 80)).point(lambda v: v * 257, "I").convert("I;16"), {}),
    ],
    ids=["rgb", "grey", "palette", "bilevel", "16-bit grey"],
)
def test_a_png_goes_in_without_decoding_and_comes_out_the_same(
    tmp_path: Path, image: Image.Image, options: dict[str, object]
) -> None:
    png = encoded(image, "PNG", **options)
    data = images_to_pdf([png])
    idat = png[png.index(b"IDAT") + 4 : png.index(b"IEND") - 8]
    assert idat in data  # the compressed pixels as they were
    pdf = tmp_path / "out.pdf"
    pdf.write_bytes(data)
    [out] = extracted(tmp_path, pdf, "-png")
    found = Image.open(out)
    if image.mode == "I;16" and found.mode == "L":  # poppler writes 16-bit samples as 8-bit
        image = Image.frombytes("L", image.size, bytes(v >> 8 for v in image.get_flattened_data()))  # type: ignore[operator]
    assert _pixels(found) == _pixels(image)


def _pixels(image: Image.Image) -> list[object]:
    if image.mode == "P":
        image = image.convert("RGB")
    if image.mode == "1":
        image = image.convert("L")
    return list(image.get_flattened_data())


@pytest.mark.tools
def test_alpha_becomes_a_soft_mask(tmp_path: Path) -> None:
    image = quadrants().convert("RGBA")
    alpha = Image.new("L", image.size, 255)
    alpha.paste(0, (0, 0, 60, 40))  # the red quadrant transparent
    image.putalpha(alpha)
    pdf = written(tmp_path, [encoded(image, "PNG")])
    listing = run("pdfimages", "-list", str(pdf))
    assert " smask " in listing
    outs = extracted(tmp_path, pdf, "-png")
    colour, mask = (Image.open(path) for path in outs)
    assert _pixels(colour) == _pixels(image.convert("RGB")) and _pixels(mask) == _pixels(alpha)
    page = rendered(tmp_path, pdf, dpi=96)
    assert close(page.getpixel((15, 10)), (255, 255, 255), 5) and close(page.getpixel((100, 10)), GREEN)


@pytest.mark.tools
@pytest.mark.parametrize("mode", ["RGB", "L", "P"])
def test_a_png_colour_key_becomes_a_soft_mask(tmp_path: Path, mode: str) -> None:
    image = quadrants(mode=mode) if mode != "P" else quadrants().quantize(8)
    key = image.getpixel((5, 5))  # the red quadrant's value is transparent
    pdf = written(tmp_path, [encoded(image, "PNG", transparency=key)])
    assert " smask " in run("pdfimages", "-list", str(pdf))
    page = rendered(tmp_path, pdf, dpi=96)
    assert close(page.getpixel((15, 10)), (255, 255, 255), 5) and not close(
        page.getpixel((100, 70)), (255, 255, 255), 5
    )


@pytest.mark.tools
def test_16_bit_grey_with_a_colour_key_or_in_32_bits_is_scaled_not_clipped(tmp_path: Path) -> None:
    # a 16-bit PNG with a colour key: dark grey (12,850 of 65,535: 50 of 255) above, the key below
    keyed = Image.new("I;16", (120, 80), 12_850)
    keyed.paste(Image.new("I;16", (120, 40), 32_900), (0, 40))
    # a 32-bit grey TIFF (mode I) of the same dark grey
    wide = Image.new("I", (120, 80), 12_850)
    pdf = written(tmp_path, [encoded(keyed, "PNG", transparency=32_900), encoded(wide, "TIFF")])
    assert " smask " in run("pdfimages", "-list", str(pdf))
    first, second = rendered(tmp_path, pdf, 1, dpi=96), rendered(tmp_path, pdf, 2, dpi=96)  # 96 dpi: 1 px a pixel
    # each was white: Pillow's own conversion clipped every value over 255
    assert close(first.getpixel((60, 20)), (50, 50, 50), 6) and close(first.getpixel((60, 60)), (255, 255, 255), 5)
    assert close(second.getpixel((60, 40)), (50, 50, 50), 6)


@pytest.mark.tools
@pytest.mark.parametrize("fmt", ["WEBP", "GIF", "BMP", "TIFF"])
def test_other_formats_are_decoded_losslessly(tmp_path: Path, fmt: str) -> None:
    image = quadrants() if fmt != "GIF" else quadrants().quantize(8).convert("RGB")
    options: dict[str, object] = {"lossless": True} if fmt == "WEBP" else {}
    pdf = written(tmp_path, [encoded(image, fmt, **options)])
    [out] = extracted(tmp_path, pdf, "-png")
    assert _pixels(Image.open(out).convert("RGB")) == _pixels(image)


@pytest.mark.tools
def test_page_sizes_auto_a4_and_letter(tmp_path: Path) -> None:
    wide = encoded(quadrants(400, 200), "PNG", dpi=(200, 200))
    tall = encoded(quadrants(200, 400), "JPEG", dpi=(50, 50))
    none = encoded(quadrants(96, 48), "PNG")
    assert page_sizes(written(tmp_path, [wide, tall, none])) == ["144 x 72 pts", "288 x 576 pts", "72 x 36 pts"]
    a4 = written(tmp_path, [wide, tall], page_size="a4")
    assert page_sizes(a4) == ["841.89 x 595.276 pts (A4)", "595.276 x 841.89 pts (A4)"]
    assert page_sizes(written(tmp_path, [wide], page_size="letter")) == ["792 x 612 pts (letter)"]
    page = rendered(tmp_path, a4, dpi=36)  # 421 x 298: the 2:1 image fills the width, centred vertically
    width, height = page.size
    band = (height - width / 2) / 2
    assert close(page.getpixel((5, int(band / 2))), (255, 255, 255), 5)
    assert close(page.getpixel((5, int(band + 5))), RED)
    assert close(page.getpixel((width - 5, int(height - band - 5))), YELLOW)
    assert close(page.getpixel((width - 5, int(height - band / 2))), (255, 255, 255), 5)


def test_a_huge_auto_page_is_scaled_to_pdf_s_largest() -> None:
    import pikepdf

    tiny_dpi = encoded(Image.new("L", (20_000, 10)), "PNG", dpi=(10, 10))  # 2,000 inches wide at its DPI
    with pikepdf.Pdf.open(io.BytesIO(images_to_pdf([tiny_dpi]))) as pdf:
        assert [float(v) for v in pdf.pages[0].mediabox] == [0, 0, 14_400, 7.2]


@pytest.mark.parametrize(
    ("image", "page", "drawn"),
    [
        (encoded(Image.new("L", (300, 200)), "PNG", dpi=(10_000, 10_000)), [3, 3], "2.16 0 0 1.44 0.42 0.78 cm"),
        (encoded(Image.new("L", (1, 20_000)), "PNG"), [3, 14_400], "0.72 0 0 14400 1.14 0 cm"),
    ],
    ids=["10,000 dpi", "one pixel wide"],
)
def test_a_tiny_auto_page_is_pdf_s_smallest_with_the_image_centred(image: bytes, page: list[int], drawn: str) -> None:
    import pikepdf

    with pikepdf.Pdf.open(io.BytesIO(images_to_pdf([image]))) as pdf:
        assert [float(v) for v in pdf.pages[0].mediabox] == [0, 0, *page]  # PDF 1.7 Annex C: at least 3 units
        assert drawn in pdf.pages[0].Contents.read_bytes().decode()


def test_file_variant(tmp_path: Path) -> None:
    import pikepdf

    paths = []
    for number in range(3):
        path = tmp_path / f"{number}.png"
        path.write_bytes(encoded(quadrants(), "PNG"))
        paths.append(str(path))
    images_to_pdf_file(paths, str(tmp_path / "out.pdf"))
    assert len(pikepdf.Pdf.open(tmp_path / "out.pdf").pages) == 3


def test_the_image_count_on_both_sides() -> None:
    import pikepdf

    tiny = encoded(Image.new("L", (1, 1)), "PNG")
    assert len(pikepdf.Pdf.open(io.BytesIO(images_to_pdf([tiny] * MAX_IMAGES))).pages) == MAX_IMAGES
    with pytest.raises(TooLarge, match="1,001 images"):
        images_to_pdf([tiny] * (MAX_IMAGES + 1))


@pytest.mark.parametrize(
    ("images", "error", "reason"),
    [
        ([], InvalidInput, "at least one image"),
        ([b""], InvalidInput, "image 1 is empty"),
        ([encoded(quadrants(), "PNG"), b"plain text, not an image"], UnsupportedFormat, "not an image"),
        ([encoded(quadrants(), "PNG")[:60]], InvalidInput, "image 1"),
        ([png_claiming(100_000, 100_000)], TooLarge, "image 1 is 100000x100000"),
        ([jpeg_claiming_65535()], TooLarge, "65535x65535"),
    ],
)
def test_bad_images_are_refused(images: list[bytes], error: type[Exception], reason: str) -> None:
    with pytest.raises(error, match=reason):
        images_to_pdf(images)
