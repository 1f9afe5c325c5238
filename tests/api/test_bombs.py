"""Every bomb of tests/bombs.py through the whole API in a child process: the expected 4xx (or a
bounded 200), never a 5xx, and a peak resident memory under 1 GiB for the whole run."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.bombs import BOMBS, PROJECT_ROOT

MAX_PEAK_RSS_MIB = 1024


def test_every_bomb_is_answered_as_expected_within_bounded_memory() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "tests.bombs"], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=600
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    outcomes = {line["name"]: line for line in map(json.loads, completed.stdout.splitlines())}
    assert set(outcomes) == {bomb.name for bomb in BOMBS}
    for bomb in BOMBS:
        outcome = outcomes[bomb.name]
        assert (outcome["status"], outcome["code"]) == bomb.expected, bomb.name
    peak = max(outcome["peak_rss_mib"] for outcome in outcomes.values())
    assert peak < MAX_PEAK_RSS_MIB, outcomes
