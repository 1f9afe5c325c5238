"""The diff in bounded time and size: difflib's exact answer while the differing middle is small, a
valid diff cut at unique lines past that, and a 413 before writing an answer that cannot fit."""

from __future__ import annotations

import difflib
import random
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fileapi.convert import textdiff
from fileapi.convert.payload import response_limit
from fileapi.convert.textdiff import TextDiff, anchored_blocks, diff_texts
from fileapi.errors import TooLarge
from tests.helpers import require_tool

LINES = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "d\n", "e\n", "f\n", "g"]), max_size=30)
UNIQUE_HEAVY = st.lists(st.sampled_from([f"{n}\n" for n in range(60)] + ["x\n", "y\n"]), max_size=60)


def applied(a: str, result: TextDiff) -> str:
    """`a` with the hunks of `result` applied, as patch applies a unified diff."""
    old = re.findall(r"[^\n]*\n|[^\n]+\Z", a)
    out: list[str] = []
    position = 0
    for hunk in result.hunks:
        start = hunk.oldStart - 1 if hunk.oldLines else hunk.oldStart
        out += old[position:start]
        position = start
        for line in hunk.lines:
            text = old[position] if line["type"] != "added" else None
            if line["type"] == "added":
                out.append(line["text"] + "\n")
            else:
                assert text is not None and text.rstrip("\n") == line["text"]
                position += 1
                if line["type"] == "context":
                    out.append(text)
    out += old[position:]
    return "".join(out)


def joined(lines: list[str]) -> str:
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


@given(LINES, LINES)
def test_small_middles_get_difflibs_exact_matching(old: list[str], new: list[str]) -> None:
    expected = [tuple(block) for block in difflib.SequenceMatcher(None, old, new, autojunk=False).get_matching_blocks()]
    assert [*anchored_blocks(old, new), (len(old), len(new), 0)] == expected


@settings(max_examples=200)
@given(UNIQUE_HEAVY, UNIQUE_HEAVY, st.integers(min_value=0, max_value=400))
def test_past_the_budget_the_diff_is_still_valid(old: list[str], new: list[str], work: int) -> None:
    a, b = joined(old), joined(new)
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(textdiff, "EXACT_MATCH_BUDGET", 0)
        patched.setattr(textdiff, "MATCH_WORK", work)
        result = diff_texts(a, b, context=1)
    assert applied(a, result) == b
    assert sum(line["type"] == "added" for hunk in result.hunks for line in hunk.lines) == result.added


def test_lines_changed_one_in_two_are_diffed_minimally_in_linear_time() -> None:
    # difflib alone took 13.6 s on 20,000 such lines; the anchors are the unchanged ones
    a = "".join(f"{i}\n" for i in range(100_000))
    b = "".join(f"{i}\n" if i % 2 else f"x{i}\n" for i in range(100_000))
    result = diff_texts(a, b)
    assert (result.added, result.removed) == (50_000, 50_000)


def test_a_diff_that_cannot_fit_the_response_is_refused_before_it_is_written() -> None:
    with response_limit(6_291_556), pytest.raises(TooLarge, match="the diff, showing 1,000,000 lines"):
        diff_texts("a\n" * 500_000, "b\n" * 500_000)


def test_a_large_diff_that_fits_is_answered() -> None:
    a = "same\n" * 400_000 + "old\n"
    with response_limit(6_291_556):
        result = diff_texts(a, a.replace("old", "new"))
    assert (result.added, result.removed, len(result.hunks)) == (1, 1, 1)


def patched(tmp_path: Path, a: str, result: TextDiff) -> str:
    """`a` after GNU patch applied `result`'s unified diff to it."""
    target = tmp_path / "file.txt"
    target.write_bytes(a.encode())
    subprocess.run(
        [require_tool("patch"), "--quiet", "--force", str(target)],
        input=result.unified.encode(),
        check=True,
        capture_output=True,
    )
    return target.read_bytes().decode()


@pytest.mark.tools
@pytest.mark.parametrize("seed", range(6))
def test_patch_applies_diffs_of_large_random_pairs(tmp_path: Path, seed: int) -> None:
    # Past EXACT_MATCH_BUDGET: few distinct lines (histogram cuts), many unique ones (patience cuts), and both
    rng = random.Random(seed)
    vocabulary = [f"{n}\n" for n in range(rng.choice([3, 50, 5_000]))]
    old = [rng.choice(vocabulary) for _ in range(rng.randint(2_000, 6_000))]
    new = [line for line in old if rng.random() > 0.2]
    for _ in range(len(new) // 10):
        new.insert(rng.randrange(len(new) + 1), rng.choice(vocabulary))
    a, b = "".join(old), "".join(new) + "no newline at the end"
    result = diff_texts(a, b)
    assert patched(tmp_path, a, result) == b
    assert result.removed - result.added == len(old) - len(new) - 1


@pytest.mark.tools
def test_texts_without_a_common_line_are_one_replaced_block_in_linear_time(tmp_path: Path) -> None:
    # was 10.5 s at 40,000 lines: a range without anchors was cut again and again (bench: make bench, text/diff)
    a = "".join(f"old {n}\n" for n in range(40_000))
    b = "".join(f"new {n}\n" for n in range(40_000))
    result = diff_texts(a, b, context=0)
    assert (result.added, result.removed, len(result.hunks)) == (40_000, 40_000, 1)
    assert patched(tmp_path, a, result) == b


def test_a_range_of_repeated_lines_only_is_cut_at_the_rarest() -> None:
    old = ["x\n", "y\n"] * 300 + ["z\n"] * 2
    new = ["y\n", "x\n"] * 300 + ["z\n"] * 2
    blocks = anchored_blocks(old, new)
    assert all(old[i : i + size] == new[j : j + size] for i, j, size in blocks)
    assert sum(size for _, _, size in blocks) >= 500
