"""text/diff against GNU `diff -u` on the same pair: texts with no line or one line in ten in common, and the
corpus's text pairs."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

from bench.scoreboard import Goal, record
from bench.timing import cpu_seconds, median_seconds, paired_medians, row
from fileapi.convert.textdiff import diff_texts

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
MAX_RATIO = 3.0  # issue 36: at most 3x diff -u's time (was 10.5 s against 0.02 s at 2 x 40,000 lines)


def unrelated_texts(lines: int, seed: int = 36) -> tuple[str, str]:
    """Two texts of `lines` lines each with no line in common (the quadratic case of an unbounded diff)."""
    rng = random.Random(seed)
    return (
        "".join(f"old line {n} {rng.getrandbits(48):x}\n" for n in range(lines)),
        "".join(f"new line {n} {rng.getrandbits(48):x}\n" for n in range(lines)),
    )


def sharing(old: str, new: str, every: int) -> str:
    """`new` with every `every`-th line taken from `old` (a few common lines, each an anchor)."""
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    return "".join(old_lines[n] if n % every == 0 else line for n, line in enumerate(new_lines))


def edited(text: str, every: int) -> str:
    """`text` with every `every`-th line dropped and the line after it changed (an edited revision)."""
    lines = text.splitlines(keepends=True)
    out = []
    for number, line in enumerate(lines):
        if number % every == 0:
            continue
        out.append(f"edited: {line}" if number % every == 1 else line)
    return "".join(out)


def corpus_pairs() -> list[tuple[str, str, str]]:
    """(name, old, new) text pairs from ../shared/corpus (none when it is absent)."""
    spec = CORPUS / "commonmark-spec" / "spec.txt"
    small = CORPUS / "small"
    pairs: list[tuple[str, str, str]] = []
    if spec.is_file():
        text = spec.read_text(encoding="utf-8")
        pairs.append(("spec.txt, every 7th line edited", text, edited(text, 7)))
        pairs.append(("spec.txt against README.md", text, (spec.parent / "README.md").read_text(encoding="utf-8")))
    strict, loose = small / "html-4.01-strict.html", small / "html-4.01-transitional.html"
    if strict.is_file() and loose.is_file():
        pairs.append(("html-4.01 strict against transitional", strict.read_text(), loose.read_text()))
    return pairs


def bench_textdiff(tmp: Path) -> None:
    print("\ntext/diff against diff -u (CPU time, the tool's whole process)")
    old, new = unrelated_texts(40_000)
    cases = [
        ("2 x 40,000 lines, none in common", old, new),
        ("2 x 40,000 lines, one in ten in common", old, sharing(old, new, 10)),
        *corpus_pairs(),
    ]
    if len(cases) == 2:
        print(f"  ({CORPUS} is absent: the corpus pairs are skipped)")
    for name, a, b in cases:
        _compare(tmp, name, a, b)


def _compare(tmp: Path, name: str, a: str, b: str) -> None:
    (tmp / "a.txt").write_text(a, encoding="utf-8")
    (tmp / "b.txt").write_text(b, encoding="utf-8")

    def diff_u() -> None:
        subprocess.run(["diff", "-u", "a.txt", "b.txt"], cwd=tmp, stdout=subprocess.DEVNULL, check=False)

    tool: float | None = None
    if shutil.which("diff") is None:
        ours = median_seconds(lambda: diff_texts(a, b), clock=cpu_seconds)
    else:
        ours, tool = paired_medians(lambda: diff_texts(a, b), diff_u, clock=cpu_seconds)
    print(row(f"diff, {name}", ours, tool, "diff -u"))
    record(
        "Text",
        f"diff, {name}",
        ours * 1000,
        "ms",
        Goal(max_ratio=MAX_RATIO),
        anchor=tool and tool * 1000,
        anchor_name="diff -u",
        missing="" if tool else "diff is not installed",
    )


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        bench_textdiff(Path(folder))
