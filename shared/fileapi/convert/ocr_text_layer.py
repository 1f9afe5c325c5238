"""An invisible text layer for a page: recognised words drawn in text render mode 3 (neither filled nor
stroked) with glyph-less Type 3 fonts, each word stretched over its box, as Tesseract's own PDF renderer does
with its GlyphLessFont.

Every glyph is 0.5 em wide and draws nothing; a word of n characters at font size 1 is n/2 units wide in
text space, so its text matrix maps that width onto the word's box and 1 unit of height onto the box's
height. A ToUnicode map gives each code its character, so extraction, search and copy read the words. A
Type 3 font has one-byte codes: a page's distinct characters are spread over fonts of 256 codes each.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from fileapi.convert.ocr_engine import OcrWord

GLYPH_WIDTH = 500  # glyph space units (1/1000 em): every code's advance
CODES_PER_FONT = 256
# (x, y) of the page's user space for the pixel (column, row) of the page's image: an affine map.
Point = tuple[float, float]


@dataclass(frozen=True)
class PixelToPage:
    """The affine map from the rendered image's pixels (origin top left) to the page's user space."""

    origin: Point
    per_column: Point
    per_row: Point

    def __call__(self, column: float, row: float) -> Point:
        return (
            self.origin[0] + column * self.per_column[0] + row * self.per_row[0],
            self.origin[1] + column * self.per_column[1] + row * self.per_row[1],
        )


@dataclass(frozen=True)
class TextLayer:
    """A content stream that uses the fonts /F0, /F1, ... and, for each font, the characters of its codes."""

    content: bytes
    fonts: list[str]


def text_layer(words: Sequence[OcrWord], to_page: PixelToPage) -> TextLayer:
    """The invisible words, each from its left to its right edge, on its line's baseline, at its line's
    height rounded to a whole point: readers group lines into blocks by font size, and a size that varied
    by a pixel from line to line interleaved a two-column page's columns in pdftotext (CER 57% to 33%)."""
    codes: dict[str, tuple[int, int]] = {}
    fonts: list[str] = []
    for word in words:
        for char in word.text:
            if char not in codes:
                if not fonts or len(fonts[-1]) == CODES_PER_FONT:
                    fonts.append("")
                codes[char] = (len(fonts) - 1, len(fonts[-1]))
                fonts[-1] += char
    parts = ["BT", "3 Tr"]
    current_font = -1
    for word in words:
        first, last, above_first = _word_line(word)
        start, end, above = to_page(*first), to_page(*last), to_page(*above_first)
        advance = len(word.text) * GLYPH_WIDTH / 1000
        along = ((end[0] - start[0]) / advance, (end[1] - start[1]) / advance)
        up = (above[0] - start[0], above[1] - start[1])
        height = math.hypot(*up)
        if along == (0.0, 0.0) or height == 0:
            continue
        snap = max(1, round(height)) / height
        up = (up[0] * snap, up[1] * snap)
        parts.append(" ".join(_number(value) for value in (*along, *up, *start)) + " Tm")
        for font, run in _runs(word.text, codes):
            if font != current_font:
                parts.append(f"/F{font} 1 Tf")
                current_font = font
            parts.append(f"<{run.hex()}> Tj")
    parts.append("ET")
    return TextLayer(content="\n".join(parts).encode("ascii"), fonts=fonts)


def _word_line(word: OcrWord) -> tuple[Point, Point, Point]:
    """In pixels: where the word starts and ends on its line's baseline, and the point a line height above its
    start. A line read across the image runs from the box's left to its right edge, the height straight up; a
    line read down or up the image (a page scanned a quarter turned, which Tesseract reads so) runs along its
    baseline over the box's extent there, the height square to it (stretched across the box, a word was a
    sliver 2,000 points long)."""
    left, top, right, bottom = word.box
    (x1, y1), (x2, y2) = word.baseline
    height = max(word.line_height, 1.0)
    if abs(y2 - y1) <= abs(x2 - x1):
        row_left, row_right = _baseline_rows(word, left, right)
        return (left, row_left), (right, row_right), (left, row_left - height)
    length = math.hypot(x2 - x1, y2 - y1)
    ux, uy = (x2 - x1) / length, (y2 - y1) / length  # the reading direction
    reach = [(x - x1) * ux + (y - y1) * uy for x in (left, right) for y in (top, bottom)]
    start, end = min(reach), max(reach)
    first = (x1 + ux * start, y1 + uy * start)
    return first, (x1 + ux * end, y1 + uy * end), (first[0] + uy * height, first[1] - ux * height)


def _baseline_rows(word: OcrWord, left: int, right: int) -> tuple[float, float]:
    """The rows of the word's line baseline under its left and right edges (a skewed scan's baseline slopes)."""
    (x1, y1), (x2, y2) = word.baseline
    if x2 == x1:
        return float(y1), float(y1)
    slope = (y2 - y1) / (x2 - x1)
    return y1 + (left - x1) * slope, y1 + (right - x1) * slope


def _runs(text: str, codes: dict[str, tuple[int, int]]) -> list[tuple[int, bytes]]:
    """The word as (font, codes) runs of consecutive characters in the same font."""
    runs: list[tuple[int, bytes]] = []
    for char in text:
        font, code = codes[char]
        if runs and runs[-1][0] == font:
            runs[-1] = (font, runs[-1][1] + bytes([code]))
        else:
            runs.append((font, bytes([code])))
    return runs


def _number(value: float) -> str:
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def to_unicode_cmap(characters: str) -> bytes:
    """A ToUnicode CMap giving code i the character characters[i] (UTF-16BE, surrogate pairs beyond the BMP)."""
    entries = [f"<{code:02X}> <{char.encode('utf-16-be').hex().upper()}>" for code, char in enumerate(characters)]
    blocks = []
    for start in range(0, len(entries), 100):  # at most 100 entries per bfchar block
        chunk = entries[start : start + 100]
        blocks.append(f"{len(chunk)} beginbfchar\n" + "\n".join(chunk) + "\nendbfchar")
    return (
        "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
        "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
        "/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n"
        "1 begincodespacerange\n<00> <FF>\nendcodespacerange\n"
        + "\n".join(blocks)
        + "\nendcmap\nCMapName currentdict /CMapResource defineresource pop\nend\nend\n"
    ).encode("ascii")
