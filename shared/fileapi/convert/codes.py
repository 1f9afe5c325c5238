"""QR codes (segno) and barcodes (zxing-cpp): generating and decoding.

Format names in results: qr_code, micro_qr_code, rmqr_code, ean13, ean8, upca, upce, code128,
code39, code93, codabar, itf, itf14, datamatrix, pdf417, aztec, and the other symbologies of
zxing-cpp in lower case without punctuation (e.g. databar). A UPC-A symbol (read by zxing-cpp as
EAN-13 with a leading 0) is reported as upca with its 12 digits, a UPC-E as upce with its 8 digits,
and an ITF symbol of 14 digits with a valid GS1 check digit as itf14.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from fileapi.convert import deadline
from fileapi.convert.image_io import open_image
from fileapi.errors import InvalidInput, TooLarge

if TYPE_CHECKING:
    from PIL import Image

MAX_QR_SIDE_PIXELS = 10_000
QR_CAPACITY_BYTES = {"L": 2953, "M": 2331, "Q": 1663, "H": 1273}  # version 40, byte mode
_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")
_COLOUR_ALPHA = re.compile(r"#[0-9a-fA-F]{6}([0-9a-fA-F]{2})?")


class QrOutput(StrEnum):
    PNG = "png"
    SVG = "svg"


@dataclass(frozen=True)
class Encoded:
    data: bytes
    media_type: str


def check_colour(name: str, value: str, *, allow_transparent: bool = False) -> str:
    """A #rrggbb colour (and #rrggbbaa or 'transparent' when allowed).

    :raises InvalidInput: the message names the field and the value.
    """
    if allow_transparent and value.lower() == "transparent":
        return "transparent"
    pattern = _COLOUR_ALPHA if allow_transparent else _COLOUR
    if not pattern.fullmatch(value):
        extra = ", #rrggbbaa or transparent" if allow_transparent else ""
        raise InvalidInput(f"{name} must be a colour #rrggbb{extra}, not {value[:40]!r}")
    return value.lower()


def generate_qr(
    text: str,
    *,
    output: QrOutput = QrOutput.PNG,
    size: int = 9,
    margin: int = 4,
    error_correction: str = "M",
    foreground: str = "#000000",
    background: str = "#ffffff",
) -> Encoded:
    """A QR code of `text` (any Unicode, UTF-8 with an ECI designator when it is not Latin-1).

    :param size: pixels per module (>= 1; the default 9 makes a short URL about 300 px wide).
    :param margin: quiet zone in modules (>= 0).
    :param error_correction: L, M, Q or H.
    :raises InvalidInput: empty or too long text, bad colours or bounds.
    """
    import segno

    if not text:
        raise InvalidInput("text must not be empty")
    if size < 1 or margin < 0:
        raise InvalidInput(f"size must be >= 1 and margin >= 0 (got size {size}, margin {margin})")
    level = error_correction.upper()
    if level not in QR_CAPACITY_BYTES:
        raise InvalidInput(f"errorCorrection must be L, M, Q or H, not {error_correction!r}")
    dark = check_colour("foreground", foreground)
    light = check_colour("background", background, allow_transparent=True)
    try:
        text.encode("latin-1")
        needs_eci = False
    except UnicodeEncodeError:
        needs_eci = True
    try:
        qr = segno.make_qr(text, error=level, boost_error=False, eci=needs_eci)
    except segno.DataOverflowError:
        raise InvalidInput(
            f"text is too long for a QR code at error correction {level}: at most "
            f"{QR_CAPACITY_BYTES[level]} bytes of UTF-8 (less for text that is not Latin-1), "
            f"got {len(text.encode('utf-8'))}"
        ) from None
    side = (qr.symbol_size(scale=1, border=margin)[0]) * size
    if side > MAX_QR_SIDE_PIXELS:
        raise TooLarge(f"the QR code would be {side} px wide; at most {MAX_QR_SIDE_PIXELS} (lower size or margin)")
    out = io.BytesIO()
    options: dict[str, Any] = {
        "scale": size,
        "border": margin,
        "dark": dark,
        "light": None if light == "transparent" else light,
    }
    if output is QrOutput.SVG:
        qr.save(out, kind="svg", xmldecl=True, svgns=True, **options)
        return Encoded(out.getvalue(), "image/svg+xml")
    qr.save(out, kind="png", **options)
    return Encoded(out.getvalue(), "image/png")


class BarcodeFormat(StrEnum):
    """Barcode symbologies that barcode/generate writes (linear, then 2-D)."""

    EAN13 = "ean13"
    EAN8 = "ean8"
    UPCA = "upca"
    UPCE = "upce"
    CODE128 = "code128"
    CODE39 = "code39"
    ITF14 = "itf14"
    ITF = "itf"
    DATAMATRIX = "datamatrix"
    PDF417 = "pdf417"
    AZTEC = "aztec"

    @property
    def linear(self) -> bool:
        return self not in (BarcodeFormat.DATAMATRIX, BarcodeFormat.PDF417, BarcodeFormat.AZTEC)


_ZXING_NAMES = {
    BarcodeFormat.EAN13: "EAN13",
    BarcodeFormat.EAN8: "EAN8",
    BarcodeFormat.UPCA: "UPCA",
    BarcodeFormat.UPCE: "UPCE",
    BarcodeFormat.CODE128: "Code128",
    BarcodeFormat.CODE39: "Code39",
    BarcodeFormat.ITF14: "ITF14",
    BarcodeFormat.ITF: "ITF",
    BarcodeFormat.DATAMATRIX: "DataMatrix",
    BarcodeFormat.PDF417: "PDF417",
    BarcodeFormat.AZTEC: "Aztec",
}
# Digits with and without the check digit, per numeric format.
_GTIN_LENGTHS = {
    BarcodeFormat.EAN13: (12, 13),
    BarcodeFormat.EAN8: (7, 8),
    BarcodeFormat.UPCA: (11, 12),
    BarcodeFormat.ITF14: (13, 14),
}
_CODE39 = re.compile(r"[0-9A-Z \-.$/+%]+")
MAX_BARCODE_TEXT = 4000
# Short ITF reads are mostly false positives (two digits are found in many QR codes): both the
# writer and the reader ask for at least six digits.
MIN_ITF_DIGITS = 6


def gs1_check_digit(digits: str) -> str:
    """The GS1 (EAN/UPC/ITF-14) check digit of `digits` (without it)."""
    total = sum(int(d) * (3 if i % 2 == 0 else 1) for i, d in enumerate(reversed(digits)))
    return str((10 - total % 10) % 10)


def upce_to_upca(upce: str) -> str:
    """Expand an 8-digit UPC-E (number system, 6 digits, check) to its 12-digit UPC-A."""
    ns, d, check = upce[0], upce[1:7], upce[7]
    last = d[5]
    if last in "012":
        body = d[0:2] + last + "0000" + d[2:5]
    elif last == "3":
        body = d[0:3] + "00000" + d[3:5]
    elif last == "4":
        body = d[0:4] + "00000" + d[4]
    else:
        body = d[0:5] + "0000" + last
    return ns + body + check


def upca_to_upce(upca: str) -> str | None:
    """The UPC-E form of a 12-digit UPC-A, when it has one."""
    a = upca
    if a[0] not in "01":
        return None
    if a[3] in "012" and a[4:8] == "0000":
        short = a[1:3] + a[8:11] + a[3]
    elif a[4:9] == "00000":
        short = a[1:4] + a[9:11] + "3"
    elif a[5:10] == "00000":
        short = a[1:5] + a[10] + "4"
    elif a[6:10] == "0000" and a[10] in "56789":
        short = a[1:6] + a[10]
    else:
        return None
    return a[0] + short + a[11]


def validate_barcode_text(text: str, fmt: BarcodeFormat) -> str:
    """Check `text` for `fmt`; return it with a missing check digit added.

    :raises InvalidInput: the message says what the format needs.
    """
    if not text:
        raise InvalidInput("text must not be empty")
    if len(text) > MAX_BARCODE_TEXT:
        raise InvalidInput(f"text is longer than {MAX_BARCODE_TEXT} characters")
    if fmt in _GTIN_LENGTHS:
        short, full = _GTIN_LENGTHS[fmt]
        if not text.isascii() or not text.isdigit() or len(text) not in (short, full):
            raise InvalidInput(
                f"{fmt.value} needs {short} digits (check digit computed) or {full} with its check digit"
            )
        if len(text) == short:
            return text + gs1_check_digit(text)
        if gs1_check_digit(text[:-1]) != text[-1]:
            raise InvalidInput(f"wrong check digit for {fmt.value}: {text[-1]}, expected {gs1_check_digit(text[:-1])}")
        return text
    if fmt is BarcodeFormat.UPCE:
        if not text.isascii() or not text.isdigit() or len(text) not in (7, 8) or text[0] not in "01":
            raise InvalidInput("upce needs 7 digits starting with 0 or 1 (check digit computed) or 8 with it")
        expected = gs1_check_digit(upce_to_upca(text[:7] + "0")[:-1])
        if len(text) == 7:
            return text + expected
        if text[-1] != expected:
            raise InvalidInput(f"wrong check digit for upce: {text[-1]}, expected {expected}")
        return text
    if fmt is BarcodeFormat.ITF:
        if not text.isascii() or not text.isdigit() or len(text) % 2 or len(text) < MIN_ITF_DIGITS:
            raise InvalidInput(f"itf needs an even number of digits, at least {MIN_ITF_DIGITS}")
        return text
    if fmt is BarcodeFormat.CODE39:
        if not _CODE39.fullmatch(text):
            raise InvalidInput("code39 takes A-Z, 0-9, space and - . $ / + % only (use code128 for other text)")
        return text
    if fmt is BarcodeFormat.CODE128:
        try:
            text.encode("latin-1")
        except UnicodeEncodeError:
            raise InvalidInput("code128 takes Latin-1 text only (use datamatrix, pdf417, aztec or a QR code)") from None
    return text


def generate_barcode(
    text: str,
    fmt: BarcodeFormat,
    *,
    scale: int = 2,
    height: int | None = None,
    include_text: bool = True,
    foreground: str = "#000000",
    background: str = "#ffffff",
) -> bytes:
    """An SVG of `text` as `fmt` (zxing-cpp's writer).

    :param scale: pixels per module (1..20).
    :param height: bar height in pixels for linear codes (default: the symbology's own, about 50 modules).
    :param include_text: the human-readable text under linear codes.
    :raises InvalidInput: text not valid for the format, or bad options.
    """
    import zxingcpp

    if not 1 <= scale <= 20:
        raise InvalidInput(f"scale must be 1..20, not {scale}")
    if height is not None and not 1 <= height <= 2000:
        raise InvalidInput(f"height must be 1..2000 pixels, not {height}")
    if height is not None and fmt is BarcodeFormat.ITF14:
        raise InvalidInput("height is not available for itf14: its bearer bars fix its proportions (use scale)")
    dark = check_colour("foreground", foreground)
    light = check_colour("background", background, allow_transparent=True)
    content = validate_barcode_text(text, fmt)
    try:
        barcode = zxingcpp.create_barcode(content, getattr(zxingcpp.BarcodeFormat, _ZXING_NAMES[fmt]))
        svg = barcode.to_svg(scale=scale, add_hrt=include_text and fmt.linear, add_quiet_zones=True)
    except ValueError as exc:
        detail = re.sub(r"^Error \d+: ", "", str(exc)).split(" (retval")[0]
        raise InvalidInput(f"{fmt.value} cannot hold this text: {detail}") from None
    if height is not None and fmt.linear:
        svg = _with_bar_height(svg, height)
    return _recolour(svg, dark, light).encode("utf-8")


def _recolour(svg: str, dark: str, light: str) -> str:
    svg = svg.replace('fill="#000000"', f'fill="{dark}"', 1)
    if light == "transparent":
        return re.sub(r'<rect x="0" y="0" width="[\d.]+" height="[\d.]+" fill="#FFFFFF"/>\s*', "", svg, count=1)
    return svg.replace('fill="#FFFFFF"', f'fill="{light}"', 1)


def _with_bar_height(svg: str, height: int) -> str:
    """Stretch the bars of a linear code to `height` px (the normal bars; guard bars keep their extra)."""
    lengths = [float(v) for v in re.findall(r"v([\d.]+)", svg)]
    if not lengths:
        return svg
    normal = Counter(lengths).most_common(1)[0][0]
    delta = height - normal

    def grow_bar(match: re.Match[str]) -> str:
        return f"v{float(match.group(1)) + delta:g}"

    def shift(match: re.Match[str]) -> str:
        return f"{match.group(1)}{float(match.group(2)) + delta:g}{match.group(3)}"

    head, _, body = svg.partition("<g ")
    head = re.sub(r'( height=")([\d.]+)(")', shift, head, count=1)
    body = re.sub(r"v([\d.]+)", grow_bar, body)
    body = re.sub(r'(<rect x="0" y="0" width="[\d.]+" height=")([\d.]+)(")', shift, body, count=1)
    body = re.sub(r'(<text x="[\d.]+" y=")([\d.]+)(")', shift, body)
    return head + "<g " + body


@dataclass(frozen=True)
class DecodedCode:
    text: str
    format: str


# A large image is searched downscaled first, where zxing-cpp is fast: its side is reduced (box
# average, an integer factor) to at most DOWNSCALED_MAX_SIDE. The full resolution is read only when
# the downscaled passes find nothing, and then once, without zxing-cpp's own rotations, inversion and
# downscaling (the downscaled passes tried those) and with its cheapest binarizer: a small code in a
# large image. On a 50 MP image this took 6.0 s and 322 MiB as one full-resolution pass with every option.
DOWNSCALED_MAX_SIDE = 2_400
DOWNSCALED_MIN_PIXELS = 4_000_000  # smaller images are read at full resolution from the first pass


def read_codes(data: bytes, *, qr_only: bool = False) -> list[DecodedCode]:
    """Every code zxing-cpp finds in the image (rotated, inverted and downscaled ones too);
    when a first pass finds nothing, it tries again on a sharpened, contrast-stretched and
    (for small images) enlarged copy. An image over DOWNSCALED_MIN_PIXELS is read downscaled
    first (both passes), then once at full resolution when they found nothing.

    :raises UnsupportedFormat / InvalidInput / TooLarge: as for any image input.
    """
    import zxingcpp

    image = open_image(data)
    if image.mode != "L":
        image = image.convert("L")
    formats: Any = (
        [zxingcpp.BarcodeFormat.QRCode, zxingcpp.BarcodeFormat.MicroQRCode, zxingcpp.BarcodeFormat.RMQRCode]
        if qr_only
        else zxingcpp.BarcodeFormat.All
    )
    every_option = {"try_rotate": True, "try_downscale": True, "try_invert": True}
    large = image.width * image.height > DOWNSCALED_MIN_PIXELS
    first = _downscaled(image) if large else image
    for attempt in _attempts(first, enlarge=not large):
        codes = _read(attempt, formats, every_option)
        if codes:
            return codes
    if first is image:
        return []
    # Only the grey bytes stay for the full-resolution pass (zxing-cpp reads them in place).
    width, height = image.size
    pixels = image.tobytes()
    del image, first, attempt
    full_resolution = {"try_rotate": False, "try_downscale": False, "try_invert": False}
    view = memoryview(pixels).cast("B", (height, width))
    return _read(view, formats, {**full_resolution, "binarizer": zxingcpp.Binarizer.FixedThreshold})


def _downscaled(image: Image.Image) -> Image.Image:
    factor = -(-max(image.size) // DOWNSCALED_MAX_SIDE)
    return image.reduce(factor) if factor > 1 else image


def _attempts(image: Image.Image, *, enlarge: bool) -> Iterator[Image.Image]:
    """The image, then a sharpened and contrast-stretched copy (and that enlarged 2x when small)."""
    from PIL import ImageFilter, ImageOps

    yield image
    retry = ImageOps.autocontrast(image.filter(ImageFilter.SHARPEN), cutoff=1)
    yield retry
    if enlarge and max(image.size) < 1000:
        yield retry.resize((image.width * 2, image.height * 2))


def _read(image: Image.Image | memoryview, formats: Any, options: dict[str, Any]) -> list[DecodedCode]:
    import zxingcpp

    deadline.check()
    found = zxingcpp.read_barcodes(image, formats=formats, **options)
    return _unique([_decoded(result) for result in found if result.valid and not _implausible(result)])


def _implausible(result: Any) -> bool:
    name = result.format.name if hasattr(result.format, "name") else str(result.format)
    return name == "ITF" and len(result.text) < MIN_ITF_DIGITS


def _unique(codes: list[DecodedCode]) -> list[DecodedCode]:
    seen: set[tuple[str, str]] = set()
    result = []
    for code in codes:
        if (code.text, code.format) not in seen:
            seen.add((code.text, code.format))
            result.append(code)
    return result


def _decoded(result: Any) -> DecodedCode:
    name = result.format.name if hasattr(result.format, "name") else str(result.format)
    text: str = result.text
    if name == "EAN13" and len(text) == 13 and text.startswith("0"):
        return DecodedCode(text[1:], "upca")
    if name == "UPCE":
        upca = text[-12:]
        return DecodedCode(upca_to_upce(upca) or upca, "upce")
    if name == "ITF" and len(text) == 14 and gs1_check_digit(text[:-1]) == text[-1]:
        return DecodedCode(text, "itf14")
    names = {"QRCode": "qr_code", "MicroQRCode": "micro_qr_code", "RMQRCode": "rmqr_code"}
    return DecodedCode(text, names.get(name, re.sub(r"[^a-z0-9]", "", name.lower())))
