r"""Word, character, sentence and paragraph counts of UTF-8 text.

- words: runs of letters, digits and marks (joined by an apostrophe, - or . inside, as in "don't",
  "e-mail", "3.14"); each Han character, kana character and other ideograph counts as one word,
  as word processors count Chinese and Japanese; Hangul, which is written with spaces, counts
  by runs like Latin script.
- characters: user-perceived characters (extended grapheme clusters: "e" + combining accent
  and a flag or family emoji count as one); charactersNoSpaces leaves out white space.
- sentences: runs of text ending in . ! ? … or their full-width forms (a final run without
  terminal punctuation counts too); paragraphs: blocks of non-blank lines separated by
  blank lines; lines: line breaks + 1 for non-empty text.
- readingTimeMinutes: words / 238 (the average silent reading rate of adults in English,
  Brysbaert 2019), rounded to two decimals.

The definitions are `regex` properties (\p{L}, \p{Han}, \s, \X, ...). To count at C speed, the
text is first mapped to a class string (text_classes.py: one Latin-1 character per character);
words, sentences and paragraphs are then counted with `re` and bytes operations over it, and
grapheme clusters are only searched for (with `regex`'s \X) when a character that can join one
occurs. tests/unit/convert/test_wordcount_equality.py checks the counts against the `regex` definitions.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from fileapi.convert.encoding import decode_utf8
from fileapi.convert.text_classes import (
    ELLIPSIS,
    FULL_WIDTH_CLOSE,
    FULL_WIDTH_STOP,
    IDEOGRAPH,
    IDEOGRAPH_JOINER,
    JOINERS,
    RIGHT_DOUBLE_QUOTE,
    RIGHT_QUOTE,
    SPACE,
    WORD_JOINER,
    characters_of,
    classify,
)
from fileapi.convert.text_options import WORDS_PER_MINUTE

# The counts run over the class string of the text (text_classes.classify: ASCII stays itself,
# every other character becomes its class character), in C: `re` patterns and bytes counts.
_WORD_START = rf"A-Za-z0-9{WORD_JOINER}{IDEOGRAPH}{IDEOGRAPH_JOINER}"  # other letters, digits, marks: "a"
_ASCII_WHITE_SPACE = "\t\n\x0b\x0c\r "
_WHITE_SPACE = rf"\t\n\x0b\x0c\r {SPACE}"  # `regex` \s, as a character-class body
_PYTHON_SPACE = rf"{_WHITE_SPACE}\x1c-\x1f"  # str.isspace(): what str.strip() removes
_STOPS = rf".!?{ELLIPSIS}{FULL_WIDTH_STOP}"
# Latin terminators end a sentence before white space; full-width ones (CJK) end it anywhere.
_SENTENCE_END = (
    rf"""[.!?{ELLIPSIS}]+["'{RIGHT_DOUBLE_QUOTE}{RIGHT_QUOTE})\]]*(?=[{_WHITE_SPACE}]|$)"""
    rf"|{FULL_WIDTH_STOP}+[{FULL_WIDTH_CLOSE}{RIGHT_DOUBLE_QUOTE}{RIGHT_QUOTE}]*"
)
# A sentence counts when it holds a word, that is a word or ideograph character: one match runs from
# the first such character after the previous sentence's end to the next end (or the end of the text).
_SENTENCE = re.compile(
    rf"[{_WORD_START}][^{_STOPS}]*(?:(?!{_SENTENCE_END})[{_STOPS}][^{_STOPS}]*)*(?:{_SENTENCE_END}|\Z)"
)
# A paragraph counts when it holds a character other than white space: one match runs from the
# first such character to the next blank line (a line break, then only spaces and tabs, then another).
_PARAGRAPH = re.compile(rf"[^{_PYTHON_SPACE}](?:[^\n]+|\n(?![ \t]*\n))*")
_JOINER = re.compile(f"[{JOINERS}]")


def _word_symbols() -> bytes:
    """The class string reduced to three symbols for counting words: w (a letter, digit or mark),
    j (joins two runs of them: ' U+2019 - .) and _ (anything else, ideographs too)."""
    table = bytearray(b"_" * 256)
    for character in string.ascii_letters + string.digits + WORD_JOINER:  # WORD is "a"
        table[ord(character)] = ord("w")
    for character in "'-." + RIGHT_QUOTE:
        table[ord(character)] = ord("j")
    return bytes(table)


_WORD_SYMBOLS = _word_symbols()


@lru_cache(maxsize=1)
def _grapheme_pattern() -> Any:
    """`regex`'s \\X, compiled on first use (only texts with joining characters need it)."""
    import regex

    return regex.compile(r"\X")


@dataclass(frozen=True)
class TextCounts:
    words: int
    characters: int
    charactersNoSpaces: int
    sentences: int
    paragraphs: int
    lines: int
    readingTimeMinutes: float


def count_text(data: bytes) -> TextCounts:
    """Counts of UTF-8 text (see the module's docstring for the definitions).

    :raises InvalidInput: the body is not UTF-8.
    """
    text = decode_utf8(data).replace("\r\n", "\n").replace("\r", "\n")
    classes = classify(text)
    words = _count_words(classes)
    characters, no_spaces = _count_characters(text, classes)
    return TextCounts(
        words=words,
        characters=characters,
        charactersNoSpaces=no_spaces,
        sentences=_count(_SENTENCE, classes),
        paragraphs=_count(_PARAGRAPH, classes),
        lines=text.count("\n") + 1 if text else 0,
        readingTimeMinutes=round(words / WORDS_PER_MINUTE, 2),
    )


def _count_words(classes: str) -> int:
    """Each ideograph, plus each run of word characters joined by single ' U+2019 - . (as in "don't",
    "e-mail", "3.14"): such a run starts at a w that follows the start, _, or a j that does not
    itself follow a w (a j between two w's joins them into one word)."""
    symbols = classes.encode("latin-1").translate(_WORD_SYMBOLS)
    starts = symbols.count(b"_w") + symbols.count(b"_jw") + symbols.count(b"jjw")
    starts += symbols.startswith(b"w") + symbols.startswith(b"jw")
    return starts + classes.count(IDEOGRAPH) + classes.count(IDEOGRAPH_JOINER)


def _count(pattern: re.Pattern[str], classes: str) -> int:
    """Matches of `pattern` (subn counts them without building a match object each)."""
    return pattern.subn("", classes)[1]


def _count_characters(text: str, classes: str) -> tuple[int, int]:
    """(grapheme clusters, grapheme clusters that are not one white-space character).

    Without a character that can join a cluster (a combining mark, ZWJ, a regional indicator,
    a Hangul jamo, ...) and with CR already folded, every code point is a cluster of its own.
    """
    if _JOINER.search(classes) is None:
        spaces = sum(classes.count(space) for space in _ASCII_WHITE_SPACE + SPACE)
        return len(text), len(text) - spaces
    clusters = Counter(_grapheme_pattern().findall(text))
    characters = clusters.total()
    spaces = sum(clusters[space] for space in _ASCII_WHITE_SPACE + characters_of(SPACE))
    return characters, characters - spaces
