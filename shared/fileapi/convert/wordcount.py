"""Word, character, sentence and paragraph counts of UTF-8 text.

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
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from fileapi.convert.encoding import decode_utf8

WORDS_PER_MINUTE = 238

_IDEOGRAPHIC = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Ideographic}"


@dataclass(frozen=True)
class _Patterns:
    word: Any
    sentence_end: Any
    paragraph_break: Any
    grapheme: Any
    whitespace: Any


@lru_cache(maxsize=1)
def _patterns() -> _Patterns:
    """Compiled once, on first use (the `regex` module costs cold start to the other Text routes)."""
    import regex

    return _Patterns(
        word=regex.compile(
            rf"[{_IDEOGRAPHIC}]|(?:(?![{_IDEOGRAPHIC}])[\p{{L}}\p{{N}}\p{{M}}])+"
            rf"(?:['’\-.](?:(?![{_IDEOGRAPHIC}])[\p{{L}}\p{{N}}\p{{M}}])+)*"
        ),
        # Latin terminators end a sentence before white space; full-width ones (CJK) end it anywhere.
        sentence_end=regex.compile(r"[.!?…]+[\"'”’)\]]*(?=\s|$)|[。！？]+[」』”’）]*"),
        paragraph_break=regex.compile(r"\n[ \t]*(?:\r?\n[ \t]*)+"),
        grapheme=regex.compile(r"\X"),
        whitespace=regex.compile(r"\s"),
    )


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
    patterns = _patterns()
    words = sum(1 for _ in patterns.word.finditer(text))
    graphemes = patterns.grapheme.findall(text)
    characters = len(graphemes)
    no_spaces = sum(1 for grapheme in graphemes if not patterns.whitespace.fullmatch(grapheme))
    return TextCounts(
        words=words,
        characters=characters,
        charactersNoSpaces=no_spaces,
        sentences=_count_sentences(text, patterns),
        paragraphs=sum(1 for block in patterns.paragraph_break.split(text) if block.strip()),
        lines=text.count("\n") + 1 if text else 0,
        readingTimeMinutes=round(words / WORDS_PER_MINUTE, 2),
    )


def _count_sentences(text: str, patterns: _Patterns) -> int:
    count = 0
    start = 0
    for end in patterns.sentence_end.finditer(text):
        if patterns.word.search(text, start, end.start()):
            count += 1
        start = end.end()
    if patterns.word.search(text, start):
        count += 1
    return count
