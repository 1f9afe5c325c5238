"""Classes of real files that used to answer 5xx or wrong codes, each through the HTTP app.

AVIF grids, irot/imir/clap transforms, animated, 10-bit and HDR files; an iPhone HEIC photo; damaged
PDFs through every PDF route; a PNG that stops after its header; output formats not written here.
"""

from __future__ import annotations

import io
import struct
import zlib

import pytest
from fastapi.testclient import TestClient
from PIL import Image, ImageChops, ImageOps, ImageStat

from fileapi.catalogue.declaration import PDF, Reads
from fileapi.catalogue.registry import every
from tests.helpers import CORPUS, corpus_dir, post_bytes

pytestmark = pytest.mark.corpus

LINK_U = CORPUS / "link-u-avif"
LIBAVIF = CORPUS / "libavif" / "tests" / "data"
QPDF = CORPUS / "qpdf" / "qpdf" / "qtest" / "qpdf"
# Library vocabulary that must never reach a client.
LIBRARY_WORDS = ("BytesIO", "pikepdf", "pypdf", "pdfium", "PdfError", "Traceback", "libavif", "qpdf:", "0x7f")


def png_of(api: TestClient, key: str, data: bytes, **params: str) -> Image.Image:
    response = post_bytes(api, key, "/v1/image/convert", data, to="png", **params)
    assert response.status_code == 200, response.text
    return Image.open(io.BytesIO(response.content))


def mean_difference(a: Image.Image, b: Image.Image) -> float:
    assert a.size == b.size
    return float(sum(ImageStat.Stat(ImageChops.difference(a.convert("RGB"), b.convert("RGB"))).mean) / 3)


@pytest.mark.parametrize("name", ["kimono.rotate90.avif", "kimono.mirror-horizontal.avif"], ids=["irot", "imir"])
def test_avif_rotation_and_mirroring_show_as_the_original(api: TestClient, key: str, name: str) -> None:
    corpus_dir("link-u-avif")
    reference = Image.open(LINK_U / "kimono.jpg")
    assert mean_difference(png_of(api, key, (LINK_U / name).read_bytes()), reference) < 6


@pytest.mark.parametrize(
    "name", ["kimono.crop.avif", "kimono.mirror-vertical.rotate270.crop.avif"], ids=["clap", "clap-irot-imir"]
)
def test_avif_clean_aperture_is_applied(api: TestClient, key: str, name: str) -> None:
    corpus_dir("link-u-avif")
    reference = Image.open(LINK_U / "kimono.crop.png")
    shown = png_of(api, key, (LINK_U / name).read_bytes())
    assert shown.size == reference.size == (385, 330)
    assert mean_difference(shown, reference) < 6


def test_avif_grid_is_read_whole(api: TestClient, key: str) -> None:
    corpus_dir("libavif")
    grid = png_of(api, key, (LIBAVIF / "sofa_grid1x5_420.avif").read_bytes())
    assert grid.size == (1024, 770)  # the grid's own size: its five 1024 x 154 tiles, stacked


def test_animated_avif_gives_its_first_frame(api: TestClient, key: str) -> None:
    corpus_dir("link-u-avif")
    first = Image.open(LINK_U / "star-8bpc.avifs")
    first.seek(0)
    frame = png_of(api, key, (LINK_U / "star-8bpc.avifs").read_bytes())
    assert frame.size == first.size
    assert mean_difference(frame, first.convert("RGB")) < 1


def test_ten_and_twelve_bit_avif_come_out_in_eight_bits(api: TestClient, key: str) -> None:
    corpus_dir("link-u-avif")
    for name in ("fox.profile0.10bpc.yuv420.avif", "fox.profile2.12bpc.yuv422.monochrome.odd-width.odd-height.avif"):
        image = png_of(api, key, (LINK_U / name).read_bytes())
        assert image.mode in ("RGB", "L", "RGBA")


@pytest.mark.parametrize("name", ["colors_hdr_srgb", "seine_hdr_srgb"])
def test_hdr_avif_is_tone_mapped_towards_its_sdr_rendition(api: TestClient, key: str, name: str) -> None:
    corpus_dir("libavif")
    sdr_name = "colors_sdr_srgb.avif" if name.startswith("colors") else "seine_sdr_gainmap_srgb.avif"
    sdr = Image.open(LIBAVIF / sdr_name)
    raw = Image.open(LIBAVIF / f"{name}.avif")  # Pillow alone: PQ code values shown as if sRGB
    mapped = png_of(api, key, (LIBAVIF / f"{name}.avif").read_bytes())
    assert mean_difference(mapped, sdr) < mean_difference(raw, sdr) / 2


def test_avif_features_no_decoder_here_reads_are_unsupported_format(api: TestClient, key: str) -> None:
    corpus_dir("libavif")
    response = post_bytes(
        api,
        key,
        "/v1/image/convert",
        (LIBAVIF / "color_grid_alpha_grid_tile_shared_in_dimg.avif").read_bytes(),
        to="png",
    )
    assert (response.status_code, response.json()["error"]) == (400, "unsupported_format")


def test_iphone_heic_converts_and_rotates_without_a_deadline(api: TestClient, key: str) -> None:
    data = (corpus_dir("exif-samples") / "heic" / "IMG_5195.HEIC").read_bytes()
    jpeg = post_bytes(api, key, "/v1/image/convert", data, to="jpeg")
    assert jpeg.status_code == 200
    assert Image.open(io.BytesIO(jpeg.content)).size == (2566, 3313)
    rotated = post_bytes(api, key, "/v1/image/rotate", data, degrees="90", format="jpeg")
    assert Image.open(io.BytesIO(rotated.content)).size == (3313, 2566)
    # Without a format the result is PNG (HEIC is not an output format): 7 MB of it does not fit the
    # response, which is said at once with what would fit
    as_png = post_bytes(api, key, "/v1/image/rotate", data, degrees="90")
    assert (as_png.status_code, as_png.json()["error"]) == (413, "too_large")
    assert "JPEG" in as_png.json()["message"]


DAMAGED_PDFS = ["bad34.pdf", "unfilterable.pdf", "split-content-stream-errors.pdf", "issue-1688a.pdf", "coalesce.pdf"]
# Every conversion that takes one PDF as its body, with its example options.
PDF_ROUTES = {
    c.path: {name: str(value) for name, value in c.example.items()}
    for c in every()
    if c.takes.accepts == PDF and c.takes.reads is Reads.FILE
}


@pytest.mark.parametrize("name", DAMAGED_PDFS)
@pytest.mark.parametrize("route", sorted(PDF_ROUTES))
def test_damaged_pdfs_get_a_4xx_in_our_words_on_every_route(api: TestClient, key: str, name: str, route: str) -> None:
    corpus_dir("qpdf")
    data = (QPDF / name).read_bytes()
    flipped = bytearray(data)
    for position in range(len(flipped) // 3, len(flipped), max(1, len(flipped) // 40)):
        flipped[position] ^= 0x5A
    for body in (data, bytes(flipped), data[: len(data) // 2]):
        response = post_bytes(api, key, route, body, **PDF_ROUTES[route])
        assert response.status_code < 500, response.text
        if response.status_code >= 400:
            error = response.json()
            assert error["error"] in ("invalid_input", "unsupported_format", "too_large")
            assert not any(word in error["message"] for word in LIBRARY_WORDS), error["message"]


def test_a_form_field_tree_that_repeats_a_field_renders_without_its_fields(api: TestClient, key: str) -> None:
    corpus_dir("qpdf")
    data = (QPDF / "shared-unnamed-field.pdf").read_bytes()  # pdfium's form filler never finished on it
    rendered = post_bytes(api, key, "/v1/pdf/render-page", data, dpi="72")
    assert rendered.status_code == 200
    flattened = post_bytes(api, key, "/v1/pdf/flatten", data)
    assert (flattened.status_code, flattened.json()["error"]) == (400, "invalid_input")


def test_a_png_that_stops_after_its_header_is_invalid_input(api: TestClient, key: str) -> None:
    header = struct.pack(">IIBBBBB", 64, 64, 8, 2, 0, 0, 0)
    png = (
        b"\x89PNG\r\n\x1a\n"
        + struct.pack(">I", 13)
        + b"IHDR"
        + header
        + struct.pack(">I", zlib.crc32(b"IHDR" + header))
    )
    for path, options in (("/v1/image/convert", {"to": "jpeg"}), ("/v1/image/read-metadata", {})):
        response = post_bytes(api, key, path, png, **options)
        assert (response.status_code, response.json()["error"]) == (400, "invalid_input")
        assert response.json()["message"].startswith("the PNG image is truncated or corrupt")


@pytest.mark.parametrize("to", ["gif", "bmp", "tiff"])
def test_an_output_format_not_written_here_is_unsupported_format(api: TestClient, key: str, to: str) -> None:
    image = io.BytesIO()
    ImageOps.pad(Image.new("RGB", (8, 8), "red"), (16, 16)).save(image, "PNG")
    response = post_bytes(api, key, "/v1/image/convert", image.getvalue(), to=to)
    assert (response.status_code, response.json()["error"]) == (400, "unsupported_format")
    assert "jpeg" in response.json()["message"]
