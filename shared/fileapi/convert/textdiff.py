"""Line diffs of two texts: a unified diff (as `diff -u` writes it, `patch` applies it) and its hunks."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Literal

from fileapi.errors import InvalidInput

MAX_CONTEXT = 10_000
NO_NEWLINE = "\\ No newline at end of file"
_LINES = re.compile(r"[^\n]*\n|[^\n]+\Z")  # lines end at LF only, as for diff and patch


@dataclass(frozen=True)
class DiffLine:
    type: str  # "context", "added" or "removed"
    text: str


@dataclass(frozen=True)
class Hunk:
    oldStart: int
    oldLines: int
    newStart: int
    newLines: int
    lines: list[DiffLine]


@dataclass(frozen=True)
class TextDiff:
    identical: bool
    added: int
    removed: int
    unified: str
    hunks: list[Hunk]


def diff_texts(a: str, b: str, *, context: int = 3, label_a: str = "a", label_b: str = "b") -> TextDiff:
    """Compare `a` with `b` line by line.

    :param context: unchanged lines around each change (0..10000).
    :param label_a: name on the ``---`` line; `label_b` on the ``+++`` line (no line breaks).
    :returns: the unified diff ("" when identical; a last line without a line break is marked
        ``\\ No newline at end of file``), its hunks with 1-based line numbers, and the counts
        of added and removed lines.
    :raises InvalidInput: context out of range, or a label with a line break.
    """
    if not 0 <= context <= MAX_CONTEXT:
        raise InvalidInput(f"context must be 0..{MAX_CONTEXT}, not {context}")
    for name, label in (("labelA", label_a), ("labelB", label_b)):
        if "\n" in label or "\r" in label:
            raise InvalidInput(f"{name} must be one line")
    old, new = _LINES.findall(a), _LINES.findall(b)
    matcher = _TrimmedMatcher(old, new)
    hunks: list[Hunk] = []
    text: list[str] = []
    added = removed = 0
    for group in matcher.get_grouped_opcodes(context):
        first, last = group[0], group[-1]
        old_start, old_end, new_start, new_end = first[1], last[2], first[3], last[4]
        lines: list[DiffLine] = []
        body: list[str] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                _emit(lines, body, "context", " ", old[i1:i2])
                continue
            if tag in ("replace", "delete"):
                _emit(lines, body, "removed", "-", old[i1:i2])
                removed += i2 - i1
            if tag in ("replace", "insert"):
                _emit(lines, body, "added", "+", new[j1:j2])
                added += j2 - j1
        old_count, new_count = old_end - old_start, new_end - new_start
        text.append(f"@@ -{_range(old_start, old_count)} +{_range(new_start, new_count)} @@\n")
        text.extend(body)
        hunks.append(
            Hunk(
                oldStart=old_start + 1 if old_count else old_start,
                oldLines=old_count,
                newStart=new_start + 1 if new_count else new_start,
                newLines=new_count,
                lines=lines,
            )
        )
    unified = f"--- {label_a}\n+++ {label_b}\n" + "".join(text) if hunks else ""
    return TextDiff(identical=a == b, added=added, removed=removed, unified=unified, hunks=hunks)


# Above this many line comparisons in the differing middle, popular lines are not used as anchors
# (difflib's autojunk): the diff stays valid but may not be minimal, and the time stays bounded.
EXACT_MATCH_BUDGET = 4_000_000
Opcode = tuple[Literal["replace", "delete", "insert", "equal"], int, int, int, int]


class _TrimmedMatcher(difflib.SequenceMatcher[str]):
    """SequenceMatcher over the part between the common prefix and suffix of two line lists."""

    def __init__(self, old: list[str], new: list[str]) -> None:
        prefix = 0
        limit = min(len(old), len(new))
        while prefix < limit and old[prefix] == new[prefix]:
            prefix += 1
        suffix = 0
        while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
            suffix += 1
        middle_old, middle_new = old[prefix : len(old) - suffix], new[prefix : len(new) - suffix]
        exact = len(middle_old) * len(middle_new) <= EXACT_MATCH_BUDGET
        super().__init__(None, middle_old, middle_new, autojunk=not exact)
        self.prefix, self.old_length, self.new_length = prefix, len(old), len(new)
        self.middle_old_length, self.middle_new_length = len(middle_old), len(middle_new)

    def get_opcodes(self) -> list[Opcode]:
        shift = self.prefix
        codes: list[Opcode] = [("equal", 0, shift, 0, shift)] if shift else []
        for tag, i1, i2, j1, j2 in super().get_opcodes():
            codes.append((tag, i1 + shift, i2 + shift, j1 + shift, j2 + shift))
        end_old, end_new = shift + self.middle_old_length, shift + self.middle_new_length
        if end_old < self.old_length:
            codes.append(("equal", end_old, self.old_length, end_new, self.new_length))
        merged: list[Opcode] = []
        for code in codes:
            if merged and code[0] == merged[-1][0] == "equal":
                merged[-1] = ("equal", merged[-1][1], code[2], merged[-1][3], code[4])
            elif code[1] != code[2] or code[3] != code[4]:
                merged.append(code)
        return merged or [("equal", 0, 0, 0, 0)]


def _emit(lines: list[DiffLine], body: list[str], kind: str, prefix: str, chunk: list[str]) -> None:
    for line in chunk:
        content = line.rstrip("\r\n") if line.endswith("\n") else line
        lines.append(DiffLine(type=kind, text=content))
        if line.endswith("\n"):
            body.append(prefix + line)
        else:
            body.append(f"{prefix}{line}\n{NO_NEWLINE}\n")


def _range(start: int, count: int) -> str:
    """A hunk range as diff -u writes it (1-based; an empty range names the line before it)."""
    first = start + 1 if count else start
    return f"{first}" if count == 1 else f"{first},{count}"
