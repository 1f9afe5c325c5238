"""Barcodes (zxing-cpp): the text checked against each format's rules (check digits computed or verified), then
drawn as SVG with the bar height, scale, text and colours asked for."""

from __future__ import annotations

import re
from collections import Counter

from fileapi.convert.codes_options import MAX_BARCODE_TEXT, BarcodeFormat
from fileapi.convert.qr import check_colour
from fileapi.errors import InvalidInput

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
