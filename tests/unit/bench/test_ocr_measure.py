"""The OCR benchmark's measure: Myers' bit-parallel edit distance against the textbook table."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bench.ocr_pages import character_error_rate, edit_distance, normalised


def table_distance(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i]
        for j, char_b in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b)))
        previous = current
    return previous[-1]


@given(st.text(alphabet="abc é", max_size=40), st.text(alphabet="abcd é", max_size=40))
def test_edit_distance_is_levenshtein(a: str, b: str) -> None:
    assert edit_distance(a, b) == table_distance(a, b) == edit_distance(b, a)


def test_error_rate_counts_per_character_of_the_truth() -> None:
    assert normalised("ﬁne\n\n  print ") == "fine print"
    assert character_error_rate("fine  print", "ﬁne print") == 0
    assert character_error_rate("fone print", "fine print") == 0.1
    assert character_error_rate("", "abcd") == 1
