"""text/diff over the corpus's text pairs (those `make bench` times against diff -u, and the small folder's
HTML and XML files against each other): GNU patch turns each old text into the new one with the unified diff,
and the hunks' lines are the unified diff's."""

from __future__ import annotations

import itertools
import subprocess
from pathlib import Path

import pytest

from bench.textdiff import corpus_pairs
from fileapi.convert.textdiff import diff_texts
from tests.helpers import corpus_dir, require_tool
from tests.unit.convert.test_diff_answer import unified_lines

pytestmark = [pytest.mark.corpus, pytest.mark.tools]

SMALL_TEXTS = ("html-2.0.html", "html-3.2.html", "html-4.01-strict.html", "html5.html", "xml-1.0.xml", "svg.svg")


def pairs() -> list[tuple[str, str, str]]:
    small = corpus_dir("small")
    texts = {name: (small / name).read_text(encoding="utf-8", errors="replace") for name in SMALL_TEXTS}
    return [*corpus_pairs(), *((f"{x} to {y}", texts[x], texts[y]) for x, y in itertools.permutations(texts, 2))]


def patched(folder: Path, a: str, unified: str) -> str:
    target = folder / "old.txt"
    target.write_bytes(a.encode())
    subprocess.run([require_tool("patch"), "--quiet", "--force", str(target)], input=unified.encode(), check=True)
    return target.read_bytes().decode()


@pytest.mark.parametrize("context", [0, 3])
def test_patch_applies_the_diff_of_each_corpus_pair_both_ways(tmp_path: Path, context: int) -> None:
    checked = 0
    for _name, a, b in pairs():
        for old, new in ((a, b), (b, a)):
            diff = diff_texts(old, new, context=context)
            assert patched(tmp_path, old, diff.unified) == new
            assert [line for hunk in diff.hunks for line in hunk.lines] == unified_lines(diff.unified)
            checked += 1
    assert checked >= 2 * 30
