"""The word count over class strings (text_classes) gives exactly the counts of its definition in
`regex` patterns (the implementation it replaced, kept here as the reference)."""

from __future__ import annotations

import random
import unicodedata

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from fileapi.convert import text_classes
from fileapi.convert.text_classes_data import RUNS
from fileapi.convert.wordcount import TextCounts, count_text

_IDEOGRAPHIC = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Ideographic}"
_WORD = regex.compile(
    rf"[{_IDEOGRAPHIC}]|(?:(?![{_IDEOGRAPHIC}])[\p{{L}}\p{{N}}\p{{M}}])+"
    rf"(?:['’\-.](?:(?![{_IDEOGRAPHIC}])[\p{{L}}\p{{N}}\p{{M}}])+)*"
)
_SENTENCE_END = regex.compile(r"[.!?…]+[\"'”’)\]]*(?=\s|$)|[。！？]+[」』”’）]*")
_PARAGRAPH_BREAK = regex.compile(r"\n[ \t]*(?:\r?\n[ \t]*)+")
_GRAPHEME = regex.compile(r"\X")
_WHITE_SPACE = regex.compile(r"\s")


def reference_counts(data: bytes) -> TextCounts:
    """The counts by their definition, one `regex` pass (and a Python loop) each."""
    text = data.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
    words = sum(1 for _ in _WORD.finditer(text))
    graphemes = _GRAPHEME.findall(text)
    sentences, start = 0, 0
    for end in _SENTENCE_END.finditer(text):
        if _WORD.search(text, start, end.start()):
            sentences += 1
        start = end.end()
    if _WORD.search(text, start):
        sentences += 1
    return TextCounts(
        words=words,
        characters=len(graphemes),
        charactersNoSpaces=sum(1 for grapheme in graphemes if not _WHITE_SPACE.fullmatch(grapheme)),
        sentences=sentences,
        paragraphs=sum(1 for block in _PARAGRAPH_BREAK.split(text) if block.strip()),
        lines=text.count("\n") + 1 if text else 0,
        readingTimeMinutes=round(words / 238, 2),
    )


SAMPLES = [
    "",
    " ",
    "\n\n\n",
    "Hello, world! Don't panic: e-mail me at 3.14 o'clock.\n\nSecond paragraph here…  Really?",
    "e.g. this, i.e. that. U.S.A. ...and then... 'quoted.' (Aside.) [Done!] \"Yes?\" — no",
    "Trailing dots... Ellipsis… Mixed?! Bang!! end.” next ’twas don’t rock’n’roll",
    "Ça va? Très bien. L’été à Paris, naïve café. Straße über Öl.",
    "Ça va? Tre\u0300s bien. L’e\u0301te\u0301 a\u0300 Paris (NFD).",
    "我爱北京。日本語のテキスト！カタカナ？ひらがな」次の文。「引用」』）",
    "한국어 문장입니다. 다음 문장! 조합: \u1100\u1161\u11a8 \u1112\u1161\u11ab",
    "हिन्दी में एक वाक्य। दूसरा वाक्य है. क्षत्रिय",
    "ภาษาไทยไม่มีช่องว่าง สระอำ ทำ",
    "العربية \u0600\u0661\u0662 نص. \u06dd\u0661",
    "👍🏽 🇫🇷🇩🇪 👨‍👩‍👧 ❤️ #️⃣ a\u200db \U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
    "tabs\tand\x0bvertical\x0cfeeds\x1cfile\x1dgroup\x1erecord\x1funit \x85nel\xa0nbsp\u2003em\u3000ideo",
    "line one\r\nline two\rline three\n \t \nafter blank\n\t\nlast",
    "para one\n\n\n   \n\t\npara two\n \n\x1c\n\x1f  \npara three",
    "3.14.15 a-b-c a--b a..b a'b'c 'lead trail' -dash- .dot. x’y",
    "Ⅻ ² ½ ١٢٣ 𝟘𝟙 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ꙮ ᚠᛇᚻ",
    "\ufeffBOM first. Then text.",
    "no terminal punctuation at the end",
    "!!! ??? ... …… 。。。 ！？",
    "a。b。c！d？e」f』g）h",
    "end!\" next.' then?) more…] last",
    "\u0301 leading combining mark. \u200d alone. \U0001f1e6 single RI.",
]


@pytest.mark.parametrize("text", SAMPLES)
def test_counts_equal_the_reference(text: str) -> None:
    data = text.encode()
    assert count_text(data) == reference_counts(data)


ALPHABET = (
    "abcXYZ019 \t\n\r\x0b\x0c\x1c\x1f.!?…'’\"”)]-—,;:()[]"
    "éèçßöÖñ\u0301\u0308\u200d\u200cæ日本語中文のテキカ한국\u1100\u1161\u11a8"
    "。！？」』）「\u3000\xa0\u2028\u2029\x85हिन्दीक्षภาำ\u0600\u06dd🇫🇷👍🏽❤️\ufe0f"
)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=120))
def test_counts_equal_the_reference_on_generated_text(text: str) -> None:
    data = text.encode()
    assert count_text(data) == reference_counts(data)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=80))
def test_counts_equal_the_reference_on_any_unicode(text: str) -> None:
    data = text.encode()
    assert count_text(data) == reference_counts(data)


def test_counts_equal_the_reference_on_long_mixed_text() -> None:
    rng = random.Random(21)
    pieces = [word for sample in SAMPLES for word in sample.split(" ")]
    text = "".join(rng.choice(pieces) + rng.choice([" ", " ", "\n", "\n\n", ". ", "? ", "。"]) for _ in range(20_000))
    for variant in (text, unicodedata.normalize("NFC", text), text.encode("ascii", "ignore").decode()):
        assert count_text(variant.encode()) == reference_counts(variant.encode())


def test_class_table_matches_the_installed_regex_module() -> None:
    # When this fails after upgrading `regex`: python -m fileapi.convert.text_classes
    assert text_classes.derive_runs() == list(RUNS)


def test_code_points_without_joiners_are_clusters_of_their_own() -> None:
    table = text_classes.translation_table()
    loners = "".join(
        character
        for character in text_classes.all_code_points()
        if table[ord(character)] not in text_classes.JOINERS and not 0xD800 <= ord(character) < 0xE000
    )
    assert len(_GRAPHEME.findall(loners)) == len(loners)
    shuffled = list(loners)
    random.Random(7).shuffle(shuffled)
    assert len(_GRAPHEME.findall("".join(shuffled))) == len(shuffled)


def test_class_table_is_ascii_identity_and_covers_every_code_point() -> None:
    table = text_classes.translation_table()
    assert len(table) == text_classes.LAST_CODE_POINT + 1
    assert table[:128] == "".join(map(chr, range(128)))
    assert max(table) <= "\xff"  # Latin-1: the class string of any text takes one byte a character
