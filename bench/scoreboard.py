"""The scoreboard: one row per figure that has a goal, printed at the end of `make bench`.

Each bench section calls `record(...)` for the figures it measures; `print_scoreboard()` prints
one table (ours, the anchor measured in the same run, the ratio, the goal, pass/fail) and
`write_performance_doc()` writes docs/performance.md from the same rows, so no figure in that
page is typed by hand.
"""

from __future__ import annotations

import platform
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
PERFORMANCE_DOC = PROJECT_ROOT / "docs" / "performance.md"


@dataclass(frozen=True)
class Goal:
    """What a row must meet: at most `max_ratio` times its anchor, or a value within [min_value, max_value]."""

    max_ratio: float | None = None
    max_value: float | None = None
    min_value: float | None = None

    def describe(self, unit: str) -> str:
        parts = []
        if self.max_ratio is not None:
            parts.append(f"<= {self.max_ratio:g}x")
        if self.max_value is not None:
            parts.append(f"<= {self.max_value:g} {unit}")
        if self.min_value is not None:
            parts.append(f">= {self.min_value:g} {unit}")
        return ", ".join(parts) or "-"


@dataclass(frozen=True)
class Row:
    """One figure: `ours` in `unit`; `anchor` is the reference in the same unit, measured in the same run."""

    section: str
    name: str
    ours: float
    unit: str
    goal: Goal
    anchor: float | None = None
    anchor_name: str = ""
    missing: str = ""  # why the row could not be judged (a tool not installed): it reads n/a, never pass

    @property
    def ratio(self) -> float | None:
        return self.ours / self.anchor if self.anchor else None

    @property
    def passed(self) -> bool | None:
        """True/False against the goal; None when the goal needs an anchor that was not measured."""
        if self.missing:
            return None
        checks: list[bool] = []
        if self.goal.max_ratio is not None:
            if self.ratio is None:
                return None
            checks.append(self.ratio <= self.goal.max_ratio)
        if self.goal.max_value is not None:
            checks.append(self.ours <= self.goal.max_value)
        if self.goal.min_value is not None:
            checks.append(self.ours >= self.goal.min_value)
        return all(checks) if checks else None


ROWS: list[Row] = []


def record(
    section: str,
    name: str,
    ours: float,
    unit: str,
    goal: Goal,
    *,
    anchor: float | None = None,
    anchor_name: str = "",
    missing: str = "",
) -> Row:
    """Add a row to the scoreboard (and return it, for the section's own report).

    :param missing: what was missing to judge the row (e.g. "avifenc not installed: apt-get install
        libavif-bin"); the row then reads n/a with that reason.
    """
    entry = Row(section, name, ours, unit, goal, anchor, anchor_name, missing)
    ROWS.append(entry)
    return entry


def _number(value: float) -> str:
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.3g}"


def _verdict(row: Row) -> str:
    if row.missing:
        return f"n/a ({row.missing})"
    if row.goal == Goal():
        return "reported"  # a figure to be seen, with no bound set
    return {True: "pass", False: "FAIL", None: "n/a"}[row.passed]


def table_lines(rows: list[Row]) -> list[str]:
    """The scoreboard as Markdown table lines (also readable on a terminal)."""
    lines = [
        "| section | figure | ours | anchor | ratio | goal | result |",
        "|---|---|---:|---:|---:|---|---|",
    ]
    for row in rows:
        anchor = f"{_number(row.anchor)} {row.unit} ({row.anchor_name})" if row.anchor else "-"
        ratio = f"{row.ratio:.2f}x" if row.ratio is not None else "-"
        lines.append(
            f"| {row.section} | {row.name} | {_number(row.ours)} {row.unit} | {anchor} | {ratio} "
            f"| {row.goal.describe(row.unit)} | {_verdict(row)} |"
        )
    return lines


def print_scoreboard(rows: list[Row] | None = None) -> None:
    """Print the scoreboard table and a one-line tally."""
    rows = ROWS if rows is None else rows
    print("\nScoreboard (medians; ratios against the anchor measured in the same run)")
    for line in table_lines(rows):
        print(line)
    passed = sum(1 for row in rows if row.passed)
    failed = sum(1 for row in rows if row.passed is False)
    reported = sum(1 for row in rows if row.goal == Goal() and not row.missing)
    print(
        f"scoreboard: {passed} pass, {failed} fail, {len(rows) - passed - failed - reported} n/a, {reported} reported"
    )


def write_performance_doc(rows: list[Row] | None = None, *, path: Path = PERFORMANCE_DOC, command: str) -> None:
    """Write docs/performance.md from the scoreboard rows (`command` is what produced them)."""
    rows = ROWS if rows is None else rows
    path.parent.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    text = [
        "# Performance",
        "",
        f"Written by `{command}` on {stamp} ({platform.machine()}, Python {platform.python_version()}); "
        "do not edit by hand: run the command again.",
        "",
        "Every figure is a median of repeated runs. Each anchor (an independent tool or a bare call) was",
        "measured in the same run as ours, so the ratio holds on a noisy machine where absolute times do not.",
        "How the request-path rows are measured, and where imports go: [request-path.md](request-path.md).",
        "",
        *table_lines(rows),
        "",
    ]
    path.write_text("\n".join(text), encoding="utf-8")
