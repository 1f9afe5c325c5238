"""Colour parsing (the CSS Color 4 syntaxes people use) and conversion to hex, RGB, HSL, HSV and CMYK.

Accepted: ``#rgb``, ``#rgba``, ``#rrggbb``, ``#rrggbbaa``; ``rgb()``/``rgba()`` with numbers
(0-255) or percentages, comma or space syntax, alpha after ``,`` or ``/`` as a number 0-1 or a
percentage; ``hsl()``/``hsla()`` and ``hwb()`` with a hue in deg (default), rad, grad or turn;
the 148 CSS named colours and ``transparent``; ``cmyk()``/``device-cmyk()`` with percentages or
numbers 0-1. Out-of-range components are refused, not clamped.

Output ranges and rounding: r, g, b integers 0-255; h in degrees [0, 360) and s, l, v, c, m, y, k
in percent 0-100, each rounded to one decimal; alpha 0-1 rounded to three decimals, present
(and the hex 8 digits long) only when the input gave an alpha.
"""

from __future__ import annotations

import colorsys
import math
import re
from dataclasses import dataclass
from typing import Any

from fileapi.errors import InvalidInput

_FUNCTION = re.compile(r"^([a-z-]+)\(\s*(.*?)\s*\)$")
_HEX = re.compile(r"^#([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?(%|deg|rad|grad|turn)?$")
_HUE_UNITS = {"": 1.0, "deg": 1.0, "rad": 180 / math.pi, "grad": 0.9, "turn": 360.0}
MAX_INPUT_CHARS = 200


@dataclass(frozen=True)
class Rgba:
    """Channels 0-1; alpha None when the input gave none."""

    r: float
    g: float
    b: float
    alpha: float | None = None


EXPECTED = "expected #rgb, #rrggbb (either with alpha), rgb(), hsl(), hwb(), cmyk() or a CSS colour name"


class _OutOfRange(ValueError):
    """A well-formed number outside its component's range (safe to name: it matched _NUMBER)."""


class _Shape(ValueError):
    """A function with the wrong number of components (the message is ours)."""


def parse_color(text: str) -> Rgba:
    """Parse a CSS colour.

    :raises InvalidInput: not a colour. The message says what is wrong without repeating the
        input's text (an out-of-range number is named).
    """
    raw = text.strip().lower()
    if not raw or len(raw) > MAX_INPUT_CHARS:
        raise InvalidInput(f"not a colour (empty or over {MAX_INPUT_CHARS} characters): {EXPECTED}")
    try:
        return _parse(raw)
    except _OutOfRange as exc:
        raise InvalidInput(f"not a colour ({exc.args[0]} is out of range): {EXPECTED}") from None
    except _Shape as exc:
        raise InvalidInput(f"not a colour ({exc.args[0]}): {EXPECTED}") from None
    except ValueError:
        raise InvalidInput(f"not a colour: {EXPECTED}") from None


def _parse(raw: str) -> Rgba:
    hex_match = _HEX.match(raw)
    if hex_match:
        return _from_hex(hex_match.group(1))
    function = _FUNCTION.match(raw)
    if function is None:
        return _named(raw)
    name, body = function.groups()
    if name in ("rgb", "rgba"):
        components, alpha = _split(body, 3)
        r, g, b = (_channel(value) for value in components)
        return Rgba(r, g, b, alpha=alpha)
    if name in ("hsl", "hsla"):
        (hue, saturation, lightness), alpha = _split(body, 3)
        r, g, b = colorsys.hls_to_rgb(_hue(hue) / 360, _percent(lightness), _percent(saturation))
        return Rgba(r, g, b, alpha=alpha)
    if name == "hwb":
        (hue, whiteness, blackness), alpha = _split(body, 3)
        return _from_hwb(_hue(hue), _percent(whiteness), _percent(blackness), alpha)
    if name in ("cmyk", "device-cmyk"):
        components, alpha = _split(body, 4)
        c, m, y, k = (_unit(value) for value in components)
        return Rgba((1 - c) * (1 - k), (1 - m) * (1 - k), (1 - y) * (1 - k), alpha=alpha)
    raise ValueError(name)


def _from_hex(digits: str) -> Rgba:
    if len(digits) in (3, 4):
        digits = "".join(digit * 2 for digit in digits)
    values = [int(digits[i : i + 2], 16) / 255 for i in range(0, len(digits), 2)]
    return Rgba(values[0], values[1], values[2], alpha=values[3] if len(values) == 4 else None)


def _named(name: str) -> Rgba:
    if name == "transparent":
        return Rgba(0.0, 0.0, 0.0, alpha=0.0)
    if not name.isalpha():
        raise ValueError(name)
    from PIL import ImageColor  # the 148 CSS named colours

    if name not in ImageColor.colormap:  # getrgb also takes other syntaxes: look the name up first
        raise ValueError(name)
    r, g, b = ImageColor.getrgb(name)[:3]  # (Pillow caches parsed entries of colormap as tuples)
    return Rgba(r / 255, g / 255, b / 255)


def _split(body: str, count: int) -> tuple[list[str], float | None]:
    """`count` components and the optional alpha of a function body, in comma or space syntax."""
    if "," in body:
        if "/" in body:
            raise ValueError(body)
        components = [part.strip() for part in body.split(",")]
        alpha_text = components.pop() if len(components) == count + 1 else None
    else:
        main, slash, alpha_part = body.partition("/")
        components = main.split()
        alpha_text = alpha_part.strip() if slash else None
    if len(components) != count:
        raise _Shape(f"{len(components)} components where {count} are needed")
    return components, _unit(alpha_text) if alpha_text is not None else None


def _number(text: str) -> tuple[float, str]:
    match = _NUMBER.match(text)
    if match is None:
        raise ValueError(text)
    unit = match.group(3) or ""
    value = float(text[: len(text) - len(unit)] if unit else text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value, unit


def _channel(text: str) -> float:
    value, unit = _number(text)
    scaled = value / 100 if unit == "%" else value / 255
    if unit not in ("", "%") or not 0 <= scaled <= 1:
        raise _OutOfRange(text)
    return scaled


def _percent(text: str) -> float:
    value, unit = _number(text)
    if unit not in ("%", "") or not 0 <= value <= 100:
        raise _OutOfRange(text)
    return value / 100


def _unit(text: str) -> float:
    """A 0-1 component written as a number 0-1 or a percentage."""
    value, unit = _number(text)
    scaled = value / 100 if unit == "%" else value
    if unit not in ("", "%") or not 0 <= scaled <= 1:
        raise _OutOfRange(text)
    return scaled


def _hue(text: str) -> float:
    value, unit = _number(text)
    if unit == "%":
        raise _OutOfRange(text)
    return (value * _HUE_UNITS[unit]) % 360


def _from_hwb(hue: float, white: float, black: float, alpha: float | None) -> Rgba:
    if white + black >= 1:
        grey = white / (white + black)
        return Rgba(grey, grey, grey, alpha=alpha)
    r, g, b = colorsys.hls_to_rgb(hue / 360, 0.5, 1.0)
    scale = 1 - white - black
    return Rgba(r * scale + white, g * scale + white, b * scale + white, alpha=alpha)


def convert_color(color: str) -> dict[str, Any]:
    """The CSS colour `color` as hex, rgb, hsl, hsv and cmyk (see the module docstring for ranges).

    :raises InvalidInput: not a colour.
    """
    parsed = parse_color(color)
    r, g, b = (_byte(channel) for channel in (parsed.r, parsed.g, parsed.b))
    hue_l, lightness, saturation_l = colorsys.rgb_to_hls(parsed.r, parsed.g, parsed.b)
    hue_v, saturation_v, value = colorsys.rgb_to_hsv(parsed.r, parsed.g, parsed.b)
    key = 1 - max(parsed.r, parsed.g, parsed.b)
    cyan, magenta, yellow = (
        ((1 - channel - key) / (1 - key) if key < 1 else 0.0) for channel in (parsed.r, parsed.g, parsed.b)
    )
    alpha = {} if parsed.alpha is None else {"a": round(parsed.alpha, 3)}
    hex_text = f"#{r:02x}{g:02x}{b:02x}" + ("" if parsed.alpha is None else f"{_byte(parsed.alpha):02x}")
    return {
        "hex": hex_text,
        "rgb": {"r": r, "g": g, "b": b, **alpha},
        "hsl": {"h": _degrees(hue_l), "s": _pct(saturation_l), "l": _pct(lightness), **alpha},
        "hsv": {"h": _degrees(hue_v), "s": _pct(saturation_v), "v": _pct(value), **alpha},
        "cmyk": {"c": _pct(cyan), "m": _pct(magenta), "y": _pct(yellow), "k": _pct(key)},
    }


def _byte(channel: float) -> int:
    return math.floor(channel * 255 + 0.5)


def _pct(fraction: float) -> float:
    return round(fraction * 100, 1) + 0.0


def _degrees(fraction: float) -> float:
    return round(fraction * 360, 1) % 360 + 0.0
