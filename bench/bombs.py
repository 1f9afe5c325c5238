"""Bombs (tests/bombs.py), each in a fresh process: status, time and peak memory over the baseline."""

from __future__ import annotations

import json
import subprocess
import sys

from bench.scoreboard import Goal, record
from tests.bombs import BOMBS, PROJECT_ROOT


def _child(*arguments: str) -> dict[str, object]:
    completed = subprocess.run(
        [sys.executable, "-m", "tests.bombs", *arguments],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    result: dict[str, object] = json.loads(completed.stdout.splitlines()[-1])
    return result


def bench_bombs() -> None:
    print("\nBombs (one fresh process each; peak RSS above the process's own after start-up)")
    baseline = float(str(_child("--baseline")["peak_rss_mib"]))
    print(f"  baseline peak RSS {baseline:.0f} MiB")
    for bomb in BOMBS:
        outcome = _child(bomb.name)
        status = f"{outcome['status']} {outcome['code'] or ''}".strip()
        growth = float(str(outcome["peak_rss_mib"])) - baseline
        seconds = float(str(outcome["seconds"]))
        body = int(str(outcome["body_bytes"]))
        print(f"  {bomb.name:<58} {status:<20} {seconds * 1000:9.1f} ms  +{growth:6.0f} MiB  ({body:,} bytes sent)")
        if bomb.name == "barcode/read of 50 megapixels":  # a 50 MP image with no code: every pass runs
            record("Codes", "barcode read, 50 MP image (whole request)", seconds, "s", Goal(max_value=1.5))
            record("Codes", "barcode read, 50 MP image, peak memory above the process's", growth, "MiB",
                   Goal(max_value=200))  # fmt: skip
