"""A process and its descendants, read from /proc: their resident memory and CPU time together."""

from __future__ import annotations

import os
from pathlib import Path


def tree(pid: int) -> list[int]:
    """`pid` and its descendants."""
    found, pending = [], [pid]
    while pending:
        current = pending.pop()
        found.append(current)
        try:
            for task in Path(f"/proc/{current}/task").iterdir():
                pending += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def _stat(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/stat").read_text().split(") ")[1].split()


def tree_rss_mib(pid: int) -> float:
    total = 0
    for member in tree(pid):
        try:
            total += int(_stat(member)[21])
        except (OSError, IndexError):
            continue
    return total * os.sysconf("SC_PAGE_SIZE") / 2**20


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) of one process; 0 when it is gone."""
    try:
        fields = _stat(pid)
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(pid: int) -> float:
    return sum(cpu_seconds(member) for member in tree(pid))


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, exited but not yet reaped, does not)."""
    try:
        return _stat(pid)[0] != "Z"
    except OSError:
        return False
