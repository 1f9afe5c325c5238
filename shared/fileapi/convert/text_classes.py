"""Character classes of the word count, as one Latin-1 character per code point.

`classify(text)` maps every character to a class character with `str.translate` (C speed), so
the counts run as plain `re` patterns over the result: ASCII stays itself; every other code point
becomes one of the class characters below. The classes are those of the `regex` module's
properties that the counts are defined by (see wordcount.py); `derive_runs()` computes them from
`regex` itself, and `python -m fileapi.convert.text_classes` writes them to text_classes_data.py
(a test fails when that file and the installed `regex` disagree).
"""

from __future__ import annotations

import contextlib
from functools import lru_cache

# Class characters of non-ASCII code points (ASCII characters stand for themselves).
WORD = "a"  # a letter, digit or mark (\p{L}\p{N}\p{M}) that is not ideographic
WORD_JOINER = "\x88"  # the same, and it may join a grapheme cluster (e.g. a combining accent)
IDEOGRAPH = "\x80"  # Han, Hiragana, Katakana or Ideographic: one word each
IDEOGRAPH_JOINER = "\x89"
OTHER_JOINER = "\x8a"  # neither, and it may join a grapheme cluster (ZWJ, regional indicators, ...)
SPACE = "\x85"  # white space (`regex` \s, which is also str.isspace() beyond ASCII)
RIGHT_QUOTE = "\x81"  # U+2019 right single quote: joins words (as an apostrophe) and closes sentences
ELLIPSIS = "\x82"  # U+2026
RIGHT_DOUBLE_QUOTE = "\x83"  # U+201D
FULL_WIDTH_STOP = "\x84"  # U+3002, U+FF01, U+FF1F (ideographic full stop, full-width ! and ?)
FULL_WIDTH_CLOSE = "\x86"  # U+300D, U+300F, U+FF09 (corner brackets, full-width parenthesis)
OTHER = "\x87"

JOINERS = WORD_JOINER + IDEOGRAPH_JOINER + OTHER_JOINER
_PUNCTUATION = {
    "\u2019": RIGHT_QUOTE,
    "\u2026": ELLIPSIS,
    "\u201d": RIGHT_DOUBLE_QUOTE,
    "\u3002": FULL_WIDTH_STOP,
    "\uff01": FULL_WIDTH_STOP,
    "\uff1f": FULL_WIDTH_STOP,
    "\u300d": FULL_WIDTH_CLOSE,
    "\u300f": FULL_WIDTH_CLOSE,
    "\uff09": FULL_WIDTH_CLOSE,
}
IDEOGRAPHIC_PROPERTIES = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Ideographic}"
# Grapheme_Cluster_Break values that can make a code point part of a longer cluster (UAX #29
# GB6-GB9c, GB11-GB13; the emoji classes before Unicode 11 count where `regex` still knows them).
# Without any of them in a text (and no CR), every code point is a grapheme cluster of its own.
_JOINING_BREAKS = ("Extend", "ZWJ", "SpacingMark", "Prepend", "Regional_Indicator", "L", "V", "T")
_JOINING_BREAKS_BEFORE_UNICODE_11 = ("E_Base", "E_Modifier", "Glue_After_Zwj", "E_Base_GAZ")
LAST_CODE_POINT = 0x10FFFF


def all_code_points() -> str:
    """Every code point from U+0080 up, surrogates left out (they cannot occur in decoded UTF-8)."""
    return "".join(map(chr, range(0x80, 0xD800))) + "".join(map(chr, range(0xE000, LAST_CODE_POINT + 1)))


def derive_runs() -> list[tuple[int, str]]:
    """(first code point, class character) of each run of equal classes from U+0080, from `regex`.

    :raises AssertionError: a property overlap the class alphabet cannot express (a new `regex`
        whose data breaks the assumptions; the counts would then need another class).
    """
    import regex

    points = all_code_points()
    classes = bytearray(OTHER.encode("latin-1")) * len(points)

    def mark(pattern: str, code: str) -> None:
        for match in regex.finditer(f"(?:{pattern})+", points):
            classes[match.start() : match.end()] = code.encode("latin-1") * (match.end() - match.start())

    mark(r"[\p{L}\p{N}\p{M}]", WORD)
    mark(f"[{IDEOGRAPHIC_PROPERTIES}]", IDEOGRAPH)
    joiner_property = "".join(rf"\p{{GCB={name}}}" for name in _JOINING_BREAKS)
    for name in _JOINING_BREAKS_BEFORE_UNICODE_11:
        with contextlib.suppress(regex.error):  # not in this `regex`'s Unicode data
            joiner_property += regex.compile(rf"\p{{GCB={name}}}").pattern
    for match in regex.finditer(f"[{joiner_property}]+", points):
        for index in range(match.start(), match.end()):
            classes[index] = {ord(WORD): ord(WORD_JOINER), ord(IDEOGRAPH): ord(IDEOGRAPH_JOINER)}.get(
                classes[index], ord(OTHER_JOINER)
            )
    for match in regex.finditer(r"\s+", points):
        for index in range(match.start(), match.end()):
            assert classes[index] == ord(OTHER), f"white space U+{ord(points[index]):04X} is also a word or joiner"
            assert points[index].isspace(), f"U+{ord(points[index]):04X} is \\s for regex but not str.isspace()"
            classes[index] = ord(SPACE)
    for index, character in enumerate(points):
        if character.isspace():
            assert classes[index] == ord(SPACE), f"U+{ord(character):04X} is str.isspace() but not \\s for regex"
    for character, code in _PUNCTUATION.items():
        index = points.index(character)
        assert classes[index] == ord(OTHER), f"U+{ord(character):04X} is also a word, space or joiner"
        classes[index] = ord(code)
    runs: list[tuple[int, str]] = []
    for index, value in enumerate(classes):
        if not runs or runs[-1][1] != chr(value):
            runs.append((ord(points[index]), chr(value)))
    return runs


def _spans() -> list[tuple[int, int, str]]:
    """(first code point, code point after the last, class character) of each run from U+0080."""
    from fileapi.convert.text_classes_data import RUNS

    ends = [start for start, _ in RUNS[1:]] + [LAST_CODE_POINT + 1]
    return [(start, end, code) for (start, code), end in zip(RUNS, ends, strict=True)]


@lru_cache(maxsize=1)
def translation_table() -> str:
    """The class character of every code point, indexed by code point (built once per process)."""
    return "".join(map(chr, range(0x80))) + "".join(code * (end - start) for start, end, code in _spans())


@lru_cache(maxsize=16)
def characters_of(code: str) -> str:
    """Every non-ASCII character whose class is `code` (e.g. the white space beyond ASCII)."""
    return "".join("".join(map(chr, range(start, end))) for start, end, run_code in _spans() if run_code == code)


def classify(text: str) -> str:
    """`text` with each character replaced by its class character (ASCII unchanged)."""
    return text.translate(translation_table())


def write_data_module() -> None:
    """Write text_classes_data.py from the installed `regex` module."""
    from pathlib import Path

    import regex

    runs = derive_runs()
    lines = [
        f'"""Generated by `python -m fileapi.convert.text_classes` from regex {regex.__version__}: do not edit."""',
        "",
        "# (first code point, class character) of each run of equal classes from U+0080 (see text_classes.py).",
        "RUNS: tuple[tuple[int, str], ...] = (",
        *(f'    (0x{start:X}, "{_escaped(code)}"),' for start, code in runs),
        ")",
        "",
    ]
    Path(__file__).with_name("text_classes_data.py").write_text("\n".join(lines), encoding="utf-8")


def _escaped(code: str) -> str:
    return code if code.isascii() else f"\\x{ord(code):02x}"


if __name__ == "__main__":
    write_data_module()
