"""Operations' PDF work on large files: split and merge of a scan-like PDF against qpdf on the same file, in the
same run, and peak memory at two file sizes.

Each run is a fresh process (ours: `python -m bench.operations <split|merge> ...`, the file-based converters of
fileapi.convert.pdf_files; qpdf: its command line with the same write options), so its peak resident memory is
its own (ours: read in the process from /proc/self/status; qpdf's: `bench.timing.run_measured`). Our time is the
work's, timed inside the process after its imports (the Operations function is warm when it runs an operation);
qpdf's is its whole process. Memory is the growth of our peak over the process's resident memory after its
imports, at two files of the same 1,200 pages, one with images twice the size of the other's: memory follows pages
and objects, so doubling the bytes should leave it nearly the same.

    python -m bench.operations       # the rows alone
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.scoreboard import Goal, record
from bench.timing import peak_mib, reset_peak_mib, run_measured
from fileapi.convert.pdf_files import WRITE_OPTIONS

PAGES = 1200
# Bytes of each page's scan image: files of about 60 MB and 120 MB (tests.large_inputs.scan_like_pdf).
IMAGE_BYTES = (50_000, 100_000)
REPEAT = 3
TIME_GOAL = Goal(max_ratio=1.5)  # of qpdf's time on the same file
FLAT_GOAL = Goal(max_ratio=1.25)  # peak growth at twice the bytes, to the growth at the bytes
MIB = 1024 * 1024


@dataclass(frozen=True)
class Run:
    """One measured process: the work's seconds and the process's peak resident memory (MiB), and its resident
    memory before the work (ours only; qpdf's is 0)."""

    seconds: float
    peak_mib: float
    baseline_mib: float = 0.0

    @property
    def growth_mib(self) -> float:
        return self.peak_mib - self.baseline_mib


@dataclass(frozen=True)
class Measured:
    """The medians of one operation on one file, ours and qpdf's (None without qpdf)."""

    operation: str
    input_bytes: int
    ours: Run
    qpdf: Run | None

    @property
    def mb_per_second(self) -> float:
        return self.input_bytes / MIB / self.ours.seconds


def _waited(argv: list[str]) -> tuple[str, float, float]:
    """Run `argv`; its standard output, wall seconds and peak resident memory in MiB."""
    run = run_measured(argv)
    if run.code not in (0, 3):  # qpdf: 3 is success with warnings
        raise RuntimeError(f"{argv[0]} failed ({run.code}): {run.errors.decode(errors='replace')[-400:]}")
    return run.output.decode(), run.seconds, run.peak_mib


def _median(runs: list[Run]) -> Run:
    return Run(
        statistics.median(run.seconds for run in runs),
        statistics.median(run.peak_mib for run in runs),
        statistics.median(run.baseline_mib for run in runs),
    )


def _ours(operation: str, source: Path, folder: Path, pages: int) -> Run:
    output, _, _ = _waited([sys.executable, "-m", "bench.operations", operation, str(source), str(folder), str(pages)])
    report = json.loads(output)
    return Run(report["seconds"], report["peak_mib"], report["baseline_mib"])


def _qpdf(qpdf: str, operation: str, source: Path, folder: Path, pages: int) -> Run:
    half = pages // 2
    if operation == "split":  # the same two halves, one process each, as split_pdf_file runs them
        seconds = peak = 0.0
        for number, selection in enumerate((f"1-{half}", f"{half + 1}-{pages}"), start=1):
            argv = [qpdf, "--empty", *WRITE_OPTIONS, "--pages", str(source), selection, "--", f"{folder}/q{number}.pdf"]
            _, spent, used = _waited(argv)
            seconds, peak = seconds + spent, max(peak, used)
        return Run(seconds, peak)
    argv = [qpdf, "--empty", *WRITE_OPTIONS, "--pages", str(source), str(source), "--", f"{folder}/q.pdf"]
    _, seconds, peak = _waited(argv)
    return Run(seconds, peak)


def measure(operation: str, source: Path, folder: Path, pages: int, qpdf: str | None) -> Measured:
    """Medians of REPEAT runs of `operation` (split in two halves, or merge with itself) on `source`."""
    ours = _median([_ours(operation, source, folder, pages) for _ in range(REPEAT)])
    reference = _median([_qpdf(qpdf, operation, source, folder, pages) for _ in range(REPEAT)]) if qpdf else None
    size = source.stat().st_size * (2 if operation == "merge" else 1)
    return Measured(operation, size, ours, reference)


def bench_operations(tmp: Path) -> dict[str, Measured]:
    """Print and record the rows; the measurements at the largest size, by operation (for the cost table)."""
    from tests.large_inputs import scan_like_pdf

    qpdf = shutil.which("qpdf")
    print("\nOperations: split in two and merge with itself, scan-like PDFs on disk (fresh process per run)")
    measured: dict[tuple[str, int], Measured] = {}
    for image_bytes in IMAGE_BYTES:
        source = scan_like_pdf(tmp / f"scan-{image_bytes}.pdf", pages=PAGES, image_bytes=image_bytes)
        megabytes = source.stat().st_size / 1e6
        for operation in ("split", "merge"):
            result = measure(operation, source, tmp, PAGES, qpdf)
            measured[operation, image_bytes] = result
            line = (
                f"  {operation} {megabytes:4.0f} MB ({PAGES:,} pages)  ours {result.ours.seconds:6.2f} s "
                f"{result.mb_per_second:5.0f} MB/s, peak +{result.ours.growth_mib:4.0f} MiB"
            )
            if result.qpdf is not None:
                line += (
                    f"   qpdf {result.qpdf.seconds:6.2f} s, peak {result.qpdf.peak_mib:4.0f} MiB"
                    f"   time {result.ours.seconds / result.qpdf.seconds:.2f}x qpdf"
                )
            print(line)
        source.unlink()
    small, large = IMAGE_BYTES
    missing = "" if qpdf else "qpdf not installed: make tools"
    for operation in ("split", "merge"):
        result, half = measured[operation, large], measured[operation, small]
        megabytes = result.input_bytes / 1e6
        record("Operations", f"{operation} {megabytes:.0f} MB scan-like PDF, time", result.ours.seconds, "s",
               TIME_GOAL, anchor=result.qpdf.seconds if result.qpdf else None, anchor_name="qpdf --pages",
               missing=missing)  # fmt: skip
        record("Operations", f"{operation} peak growth, {megabytes:.0f} MB", result.ours.growth_mib, "MiB",
               FLAT_GOAL, anchor=half.ours.growth_mib, anchor_name=f"{half.input_bytes / 1e6:.0f} MB")  # fmt: skip
    return {operation: measured[operation, large] for operation in ("split", "merge")}


def _child(operation: str, source: str, folder: str, pages: int) -> None:
    """In a fresh process: the operation, timed after the imports; prints {seconds, baseline_mib, peak_mib}."""
    from fileapi.convert.pdf_files import merge_pdf_files, split_pdf_file

    baseline = reset_peak_mib()
    started = time.perf_counter()
    if operation == "split":
        split_pdf_file(source, folder, ranges=f"1-{pages // 2},{pages // 2 + 1}-{pages}")
    else:
        merge_pdf_files([source, source], os.path.join(folder, "merged.pdf"))
    seconds = time.perf_counter() - started
    print(json.dumps({"seconds": seconds, "baseline_mib": baseline, "peak_mib": peak_mib()}))


def main() -> None:
    if sys.argv[1:2] in (["split"], ["merge"]):
        operation, source, folder, pages = sys.argv[1:5]
        _child(operation, source, folder, int(pages))
        return
    with tempfile.TemporaryDirectory() as tmp:
        bench_operations(Path(tmp))


if __name__ == "__main__":
    main()
