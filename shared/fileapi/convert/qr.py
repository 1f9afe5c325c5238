"""QR codes (segno): PNG or SVG, with the error-correction level, size, quiet zone and colours asked for."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from typing import Any

from fileapi.convert.codes_options import QrOutput
from fileapi.errors import InvalidInput, TooLarge

MAX_QR_SIDE_PIXELS = 10_000
QR_CAPACITY_BYTES = {"L": 2953, "M": 2331, "Q": 1663, "H": 1273}  # version 40, byte mode
_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")
_COLOUR_ALPHA = re.compile(r"#[0-9a-fA-F]{6}([0-9a-fA-F]{2})?")


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
