"""Peak memory of the process tree that runs a pipeline, at three sizes of the same scan.

The pipeline of bench.pipelines (merge the scan with itself -> compress -> watermark) on scan-like PDFs of 150,
300 and 600 pages (about 30, 60 and 120 MB: the same pages, fewer of them). The Operations runner has a
process of its own (`python -m bench.pipeline_memory runner WHERE`: the executor over the same moto stack, its
conversions in its own conversion workers), a fresh one for each size, so the tree measured is the runner and
its workers alone: none of the client's, the API's or moto's memory. After a small warm pipeline (the workers
started, the converters imported) every process's peak resident memory is reset (/proc/PID/clear_refs 5); after
the measured one each peak is read (VmHWM). The tree's peak is at most the sum of its processes' peaks (the
runner streams files in and out while a worker waits, and a worker converts while the runner waits), so the sum
is the figure, and the growth over the tree's resident memory before the pipeline is printed beside it.
Goal: at four times the bytes, the tree's peak at most 1.2 times the smallest file's.

    python -m bench.pipeline_memory       # the rows alone
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.moto_stack import Moved, Where, attached_stack, local_api, local_endpoint, moto_stack
from bench.pipelines import IMAGE_BYTES, run_pipeline
from bench.scoreboard import PROJECT_ROOT, Goal, record
from bench.timing import reset_peaks, status_mib

SIZES_PAGES = (150, 300, 600)  # about 30, 60 and 120 MB (bench.pipelines' scan, and its first half and quarter)
FLAT_GOAL = Goal(max_ratio=1.2)  # the largest file's tree peak to the smallest's, at 4x the bytes
RUNNER_SECONDS = 1800  # a runner that has not handled its messages by then stops
POLL_SECONDS = 1.0  # between the client's reads of the operation the runner works on


@dataclass(frozen=True)
class TreeMemory:
    """One pipeline's memory in the runner's tree, MiB: each process's peak, and the tree's resident memory
    before the pipeline started."""

    runner_peak: float
    worker_peaks: tuple[float, ...]
    before: float

    @property
    def peak(self) -> float:
        return self.runner_peak + sum(self.worker_peaks)

    @property
    def growth(self) -> float:
        return self.peak - self.before


def _tree(root: int) -> list[int]:
    """`root` and every process below it."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:  # it ended meanwhile
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    tree, index = [root], 0
    while index < len(tree):
        tree.extend(pid for pid, parent in parents.items() if parent == tree[index])
        index += 1
    return tree


def serve_queue(where: Where, count: int) -> list[dict[str, Any]]:
    """Run the operations queue of `where` in this process until `count` messages were handled; after each, the
    peaks of this process and its workers since the one before (then reset), and the tree's resident memory
    when the next began."""
    measured: list[dict[str, Any]] = []
    deadline = time.monotonic() + RUNNER_SECONDS
    with attached_stack(where) as stack:
        consumer = stack.consumer()
        pids = _tree(os.getpid())
        reset_peaks(pids)
        before = sum(status_mib(pid, "VmRSS") for pid in pids)
        while len(measured) < count and time.monotonic() < deadline:
            if not consumer.poll_once():
                time.sleep(0.05)
                continue
            pids = _tree(os.getpid())
            peaks = {pid: status_mib(pid, "VmHWM") for pid in pids}
            runner = peaks.pop(os.getpid())
            measured.append({"runner": runner, "workers": sorted(peaks.values()), "before": before})
            reset_peaks(pids)
            before = sum(status_mib(pid, "VmRSS") for pid in pids)
    return measured


def measure_size(endpoint: str, document: bytes, warm: bytes) -> TreeMemory:
    """The runner tree's memory for the pipeline over `document`, a fresh runner warmed by the pipeline over
    `warm`."""
    with moto_stack(endpoint, name="pipemem") as stack, local_api() as api:
        key = stack.new_key("pipemem")
        where = json.dumps(dataclasses.asdict(stack.where))
        with tempfile.TemporaryFile() as errors:
            runner = subprocess.Popen(
                [sys.executable, "-m", "bench.pipeline_memory", "runner", where, "2"],
                cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=errors,
            )  # fmt: skip
            try:
                moved = Moved()
                run_pipeline(api, key, lambda: time.sleep(POLL_SECONDS), moved, warm)
                run_pipeline(api, key, lambda: time.sleep(POLL_SECONDS), moved, document)
                output, _ = runner.communicate(timeout=120)
            finally:
                if runner.poll() is None:
                    runner.kill()
                    runner.wait()
            if runner.returncode != 0:
                errors.seek(0)
                raise RuntimeError(f"the runner failed ({runner.returncode}): {errors.read()[-600:].decode()}")
    measured = json.loads(output.splitlines()[-1])[-1]  # the last line: the runner's report
    return TreeMemory(measured["runner"], tuple(measured["workers"]), measured["before"])


def bench_pipeline_memory(endpoint: str, tmp: Path) -> None:
    """Print and record the rows: the runner tree's peak at each size, and the largest's to the smallest's."""
    from tests.large_inputs import scan_like_pdf
    from tests.operations.helpers import pdf_with_pages

    warm = pdf_with_pages(2)
    print("\nPipeline memory: the runner and its conversion workers, merge a scan with itself -> compress -> "
          "watermark (MiB)")  # fmt: skip
    sizes: list[tuple[int, TreeMemory]] = []
    for pages in SIZES_PAGES:
        path = scan_like_pdf(tmp / f"scan-{pages}.pdf", pages=pages, image_bytes=IMAGE_BYTES)
        document = path.read_bytes()
        path.unlink()
        memory = measure_size(endpoint, document, warm)
        sizes.append((len(document), memory))
        workers = " + ".join(f"{peak:.0f}" for peak in memory.worker_peaks)
        print(f"  {len(document) / 1e6:5.0f} MB scan: tree peak <= {memory.peak:6.0f} (runner {memory.runner_peak:.0f}"
              f", workers {workers}); before {memory.before:.0f}, growth {memory.growth:.0f}")  # fmt: skip
    (small_bytes, small), (large_bytes, large) = sizes[0], sizes[-1]
    ratio = large.peak / small.peak
    verdict = "flat" if ratio <= (FLAT_GOAL.max_ratio or 0) else "NOT flat"
    print(f"  input x{large_bytes / small_bytes:.1f}: tree peak x{ratio:.2f}, growth "
          f"{small.growth:.0f} -> {large.growth:.0f} MiB: {verdict} (goal <= {FLAT_GOAL.max_ratio:g}x)")  # fmt: skip
    record("Pipelines", f"3 stages, runner tree's peak at {large_bytes / 1e6:.0f} MB", large.peak, "MiB", FLAT_GOAL,
           anchor=small.peak, anchor_name=f"the same at {small_bytes / 1e6:.0f} MB")  # fmt: skip


def main() -> None:
    if sys.argv[1:2] == ["runner"]:
        where = Where(**json.loads(sys.argv[2]))
        print(json.dumps(serve_queue(where, int(sys.argv[3]))))
        return
    with local_endpoint() as endpoint, tempfile.TemporaryDirectory() as tmp:
        bench_pipeline_memory(endpoint, Path(tmp))


if __name__ == "__main__":
    main()
