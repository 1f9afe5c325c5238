"""The scoreboard's verdicts: a row with a goal passes or fails; one without (a figure asked to be seen) reads
reported and is tallied apart."""

from __future__ import annotations

import pytest

from bench.scoreboard import Goal, Row, print_scoreboard, table_lines


def test_verdicts_by_goal(capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        Row("S", "within", 1.0, "s", Goal(max_ratio=1.0), anchor=2.0, anchor_name="theirs"),
        Row("S", "over", 3.0, "s", Goal(max_ratio=1.0), anchor=2.0, anchor_name="theirs"),
        Row("S", "no anchor", 3.0, "s", Goal(max_ratio=1.0)),
        Row("S", "seen", 199.0, "ms", Goal(), anchor=289.0, anchor_name="whole"),
    ]
    verdicts = [line.rsplit("|", 2)[1].strip() for line in table_lines(rows)[2:]]
    assert verdicts == ["pass", "FAIL", "n/a", "reported"]
    print_scoreboard(rows)
    assert "scoreboard: 1 pass, 1 fail, 1 n/a, 1 reported" in capsys.readouterr().out
