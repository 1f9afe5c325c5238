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

import regex

from fileapi.convert.encoding import decode_utf8

WORDS_PER_MINUTE = 238

_IDEOGRAPHIC = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Ideographic}"
_WORD = regex.compile(
    rf"[{_IDEOGRAPHIC}]|(?:(?![{_IDEOGRAPHIC}])[\p{{L}}\p{{N}}\p{{M}}])+"
    rf"(?:['’\-.](?:(?![{_IDEOGRAPHIC}])[\p{{L}}\p{{N}}\p{{M}}])+)*"
)
# Latin terminators end a sentence before white space; full-width ones (CJK) end it anywhere.
_SENTENCE_END = regex.compile(r"[.!?…]+[\"'”’)\]]*(?=\s|$)|[。！？]+[」』”’）]*")
_PARAGRAPH_BREAK = regex.compile(r"\n[ \t]*(?:\r?\n[ \t]*)+")
_GRAPHEME = regex.compile(r"\X")
_WHITESPACE = regex.compile(r"\s")


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
    words = sum(1 for _ in _WORD.finditer(text))
    graphemes = _GRAPHEME.findall(text)
    characters = len(graphemes)
    no_spaces = sum(1 for grapheme in graphemes if not _WHITESPACE.fullmatch(grapheme))
    return TextCounts(
        words=words,
        characters=characters,
        charactersNoSpaces=no_spaces,
        sentences=_count_sentences(text),
        paragraphs=sum(1 for block in _PARAGRAPH_BREAK.split(text) if block.strip()),
        lines=text.count("\n") + 1 if text else 0,
        readingTimeMinutes=round(words / WORDS_PER_MINUTE, 2),
    )


def _count_sentences(text: str) -> int:
    count = 0
    start = 0
    for end in _SENTENCE_END.finditer(text):
        if _WORD.search(text, start, end.start()):
            count += 1
        start = end.end()
    if _WORD.search(text, start):
        count += 1
    return count
