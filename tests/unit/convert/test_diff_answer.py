"""The diff's answer, written as plain data in the converter: its hunks' lines are the unified diff's lines, it
is what the answer's model documents, and text JSON cannot write is refused."""

from __future__ import annotations

import gc

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fileapi.convert.json_written import dumps
from fileapi.convert.payload import response_limit
from fileapi.convert.textdiff import diff_texts
from fileapi.errors import InvalidInput, TooLarge
from fileapi.models.text import TextDiffResult

# What the JSON of the lines could be confused by: quotes, backslashes and commas around line ends, escapes,
# a kind's name as a line's text, and line ends of other kinds (CR, U+2028) that stay in a line.
PIECES = ['"', "\\", ",", "\n", '","', '\\","', "added", "\r", "\u2028", "\x00", "é", "𝄞", " ", "x"]
TEXTS = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
KINDS = {" ": "context", "-": "removed", "+": "added"}


def unified_lines(unified: str) -> list[dict[str, str]]:
    """The lines of a unified diff's hunks, as {type, text}: the independent reading of the same diff."""
    body = unified.split("\n")[2:-1]  # after the --- and +++ lines; the last LF ends the last line
    return [{"type": KINDS[line[0]], "text": line[1:]} for line in body if not line.startswith(("@@ ", "\\ "))]


@settings(max_examples=300)
@given(TEXTS, TEXTS, st.integers(min_value=0, max_value=3))
def test_hunk_lines_are_the_unified_diffs_lines(a: str, b: str, context: int) -> None:
    diff = diff_texts(a, b, context=context)
    assert [line for hunk in diff.hunks for line in hunk.lines] == unified_lines(diff.unified)


@settings(max_examples=100)
@given(TEXTS, TEXTS)
def test_the_plain_answer_is_what_the_model_documents(a: str, b: str) -> None:
    diff = diff_texts(a, b, context=1)
    written = dumps(diff)
    model = TextDiffResult.model_validate_json(written)
    assert orjson.loads(model.model_dump_json(by_alias=True, exclude_unset=True)) == orjson.loads(written)


def test_a_large_diffs_lines_are_kept_as_json_text() -> None:
    a = "".join(f"old {n}\n" for n in range(40_000))
    b = "".join(f"new {n}\n" for n in range(40_000))
    diff = diff_texts(a, b, context=0)
    (hunk,) = diff.hunks
    assert hunk.lines.text.startswith(b'[{"type":"removed","text":"old 0"},{"type":"removed","text":"old 1"},')
    assert hunk.lines.text.endswith(b'{"type":"added","text":"new 39999"}]')
    assert len(hunk.lines) == 80_000 == diff.added + diff.removed


@pytest.mark.parametrize(
    ("a", "label_a", "named"),
    [("x\n\ud800\n", "a", "a holds a lone surrogate \\(U\\+D800\\) at character 2"), ("x", "\udfff", "labelA")],
)
def test_a_lone_surrogate_is_refused(a: str, label_a: str, named: str) -> None:
    with pytest.raises(InvalidInput, match=named):
        diff_texts(a, "y\n", label_a=label_a)


def test_the_cycle_collector_is_as_it_was_after_a_diff() -> None:
    assert gc.isenabled()
    diff_texts("a\n", "b\n")
    assert gc.isenabled()
    with response_limit(1_000), pytest.raises(TooLarge):
        diff_texts("a\n" * 1_000, "b\n" * 1_000)
    assert gc.isenabled()
    gc.disable()
    try:
        diff_texts("a\n", "b\n")
        assert not gc.isenabled()
    finally:
        gc.enable()
