"""What a text-showing operator's bytes are, glyph by glyph, for a PDF font: each glyph's code, its advance
width (in text space units per unit of font size) and whether it is the single-byte space (word spacing
applies to it), and the font's ascent and descent. Enough to place every glyph of a string on the page.

Read: simple fonts (Type1, MMType1, TrueType, Type3) by /Widths (the 14 standard fonts without /Widths by
their AFM metrics under WinAnsi, pdf_core_widths.py), and composite fonts (Type0) with the Identity-H
encoding by their descendant's /W and /DW. Any other font (a CMap of variable-length codes, vertical
writing, Symbol and ZapfDingbats without /Widths) is None: its glyphs cannot be placed, and the caller
treats its text as a whole.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import pikepdf

# Standard fonts under other names (PDF 1.7, 9.6.2.2, and what Acrobat maps).
_ALIASES = {
    "Arial": "Helvetica",
    "Arial,Bold": "Helvetica-Bold",
    "Arial,Italic": "Helvetica-Oblique",
    "Arial,BoldItalic": "Helvetica-BoldOblique",
    "CourierNew": "Courier",
    "CourierNew,Bold": "Courier-Bold",
    "CourierNew,Italic": "Courier-Oblique",
    "CourierNew,BoldItalic": "Courier-BoldOblique",
    "TimesNewRoman": "Times-Roman",
    "TimesNewRoman,Bold": "Times-Bold",
    "TimesNewRoman,Italic": "Times-Italic",
    "TimesNewRoman,BoldItalic": "Times-BoldItalic",
}
MAX_W_ENTRIES = 65_536  # CIDs a /W array may give widths for (two bytes of code)


class Glyph(NamedTuple):
    code: bytes
    width: float  # advance, in units of the font size (text space / Tfs)
    is_space: bool  # the single-byte code 32, to which word spacing applies


@dataclass
class FontMetrics:
    """How to split a string into glyphs and how wide each is."""

    two_byte: bool
    widths: dict[int, float]
    default_width: float
    ascent: float = 0.8  # units of the font size
    descent: float = -0.2
    scale: float = 0.001  # glyph space to text space (Type3: its /FontMatrix)
    spaces: bool = True  # single-byte codes: 32 is a word space
    _cache: dict[int, float] = field(default_factory=dict)

    def glyphs(self, data: bytes) -> Iterator[Glyph]:
        """The glyphs of the string `data` (a two-byte font's odd last byte is dropped, as readers do)."""
        if self.two_byte:
            for index in range(0, len(data) - 1, 2):
                code = data[index] << 8 | data[index + 1]
                yield Glyph(data[index : index + 2], self.widths.get(code, self.default_width) * self.scale, False)
        else:
            for byte in data:
                width = self.widths.get(byte, self.default_width) * self.scale
                yield Glyph(bytes((byte,)), width, self.spaces and byte == 32)


def font_metrics(font: pikepdf.Object) -> FontMetrics | None:
    """The metrics of the font dictionary `font`, or None for one whose glyphs cannot be placed (see the module)."""
    import pikepdf

    if not isinstance(font, pikepdf.Dictionary):
        return None
    subtype = font.get("/Subtype")
    if subtype == pikepdf.Name.Type0:
        return _composite(font)
    if subtype not in (pikepdf.Name.Type1, pikepdf.Name.MMType1, pikepdf.Name.TrueType, pikepdf.Name.Type3):
        return None
    ascent, descent = _vertical_extent(font)
    scale = 0.001
    if subtype == pikepdf.Name.Type3:
        matrix = font.get("/FontMatrix")
        if not isinstance(matrix, pikepdf.Array) or len(matrix) != 6:
            return None
        scale = float(matrix[0])
        if scale <= 0:
            return None
    widths = font.get("/Widths")
    if isinstance(widths, pikepdf.Array):
        first = int(font.get("/FirstChar", 0))
        descriptor = font.get("/FontDescriptor")
        missing = float(descriptor.get("/MissingWidth", 0)) if isinstance(descriptor, pikepdf.Dictionary) else 0.0
        table = {first + index: float(value) for index, value in enumerate(widths) if 0 <= first + index < 256}
        return FontMetrics(False, table, missing, ascent, descent, scale)
    base = str(font.get("/BaseFont", ""))[1:]
    base = _ALIASES.get(base.split("+")[-1], base.split("+")[-1])
    from fileapi.convert.pdf_core_widths import CORE_WIDTHS

    core = CORE_WIDTHS.get(base)
    if core is None:
        return None
    widths_by_code, core_ascent, core_descent = core
    return FontMetrics(False, dict(enumerate(widths_by_code)), 0.0, core_ascent / 1000, core_descent / 1000)


def _vertical_extent(font: pikepdf.Dictionary) -> tuple[float, float]:
    import pikepdf

    descriptor = font.get("/FontDescriptor")
    if isinstance(descriptor, pikepdf.Dictionary):
        try:
            ascent = float(descriptor.get("/Ascent", 800)) / 1000
            descent = float(descriptor.get("/Descent", -200)) / 1000
        except (TypeError, ValueError):
            return 0.8, -0.2
        if 0.3 <= ascent <= 2.0 and -1.0 <= descent <= 0.0:
            return ascent, descent
    return 0.8, -0.2


def _composite(font: pikepdf.Dictionary) -> FontMetrics | None:
    import pikepdf

    if font.get("/Encoding") != pikepdf.Name("/Identity-H"):
        return None  # Identity-V writes vertically; other CMaps map codes of varying length to CIDs
    descendants = font.get("/DescendantFonts")
    if not isinstance(descendants, pikepdf.Array) or len(descendants) != 1:
        return None
    cid_font = descendants[0]
    if not isinstance(cid_font, pikepdf.Dictionary):
        return None
    default = float(cid_font.get("/DW", 1000))
    widths: dict[int, float] = {}
    w = cid_font.get("/W")
    if isinstance(w, pikepdf.Array):
        items = list(w)
        index = 0
        while index < len(items) - 1:
            first = int(items[index])
            following = items[index + 1]
            if isinstance(following, pikepdf.Array):
                for offset, each in enumerate(following):
                    widths[first + offset] = float(each)
                index += 2
            elif index + 2 < len(items):
                last, width = int(following), float(items[index + 2])
                if last - first > MAX_W_ENTRIES:
                    return None
                for cid in range(first, last + 1):
                    widths[cid] = width
                index += 3
            else:
                break
            if len(widths) > MAX_W_ENTRIES:
                return None
    ascent, descent = _vertical_extent(cid_font)
    return FontMetrics(True, widths, default, ascent, descent, spaces=False)


def write_core_widths_module() -> None:
    """Write pdf_core_widths.py from pypdf's copy of Adobe's core 14 AFM metrics (the 12 text fonts, by WinAnsi
    code)."""
    from pathlib import Path

    import pypdf
    from pypdf._codecs.core_font_metrics import CORE_FONT_METRICS  # only here, to generate the table

    lines = [
        "# ruff: noqa: E501",
        f'"""Generated by `python -m fileapi.convert.pdf_fonts` from pypdf {pypdf.__version__}\'s copy of the Core 14',
        "AFM files (Adobe: 'may be used, copied, and distributed for any purpose and without charge'): do not edit.",
        "",
        "Font name -> (advance widths of the WinAnsi codes 0..255 in 1/1000 em, ascent, descent).",
        '"""',
        "",
        "# fmt: off",
        "CORE_WIDTHS: dict[str, tuple[tuple[int, ...], int, int]] = {",
    ]
    for name, metrics in CORE_FONT_METRICS.items():
        if name in ("Symbol", "ZapfDingbats") or name in _ALIASES:
            continue
        table = metrics.character_widths
        default = int(table.get("default", 0))
        widths = []
        for code in range(256):
            try:
                char = bytes((code,)).decode("cp1252")
            except UnicodeDecodeError:
                char = ""
            widths.append(int(table.get(char, default)))
        descriptor = metrics.font_descriptor
        lines.append(f'    "{name}": (({", ".join(map(str, widths))}), {descriptor.ascent}, {descriptor.descent}),')
    lines += ["}", "# fmt: on", ""]
    Path(__file__).with_name("pdf_core_widths.py").write_text("\n".join(lines), encoding="utf-8")


if __name__ == "__main__":
    write_core_widths_module()
