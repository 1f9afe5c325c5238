"""What PDFium and libjpeg spend per unit: the measurements behind pdf_cost's and jpeg_scans' rates.

    python -m bench.cost_rates   # per case: CPU seconds and peak memory, beside the prediction

Each case runs in a fresh process (a conversion worker's situation: one job, its own heap). Not part of
`make bench` (a few cases take seconds each); the bombs of tests/bombs.py built on the same files are.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from bench.timing import PEAK_MIB_SOURCE
from fileapi.convert import jpeg_scans
from tests.hostile_files import _pdf, _stream, jpeg_of_scans, xobject_fanout_pdf

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# Run in the child: decode the file on stdin, print {"seconds": CPU, "peak_mib": growth of the peak RSS}.
_CHILD = (
    PEAK_MIB_SOURCE
    + """
import io, json, sys, time
kind, data = sys.argv[1], sys.stdin.buffer.read()
if kind == "pdf":
    import pypdfium2 as pdfium
    document = pdfium.PdfDocument(data)
else:
    from PIL import Image
before = peak()
started = time.process_time()
if kind == "pdf":
    document[0].render(scale=150 / 72)  # loading the page parses its content
else:
    Image.open(io.BytesIO(data)).load()
print(json.dumps({"seconds": time.process_time() - started, "peak_mib": peak() - before}))
"""
)


def content_pdf(operators: int) -> bytes:
    """One page of `operators` rectangles filled ('0 0 1 1 re f', 13 bytes each)."""
    import zlib

    return _pdf(
        {
            1: b"<< /Type /Catalog /Pages 2 0 R >>",
            2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            3: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
            4: _stream(b"", zlib.compress(b"0 0 1 1 re f\n" * operators)),
        }
    )


PDF_CASES: dict[str, Callable[[], bytes]] = {
    "forms drawn 10^4 times": lambda: xobject_fanout_pdf(4, 10),
    "forms drawn 10^5 times": lambda: xobject_fanout_pdf(5, 10),
    "tiling patterns filled 10^4 times": lambda: xobject_fanout_pdf(4, 10, pattern=True),
    "1,000,000 filled rectangles (13 MB of content)": lambda: content_pdf(1_000_000),
}
JPEG_CASES: dict[str, tuple[int, int]] = {
    "16x16 in 100,000 scans": (16, 100_000),
    "256x256 in 20,000 scans": (256, 20_000),
    "1000x1000 in 1,000 scans": (1000, 1000),
    "2000x2000 in 1,000 scans": (2000, 1000),
}


def measured(kind: str, data: bytes) -> dict[str, float]:
    completed = subprocess.run(
        [sys.executable, "-c", _CHILD, kind], input=data, capture_output=True, check=True, cwd=PROJECT_ROOT
    )
    result: dict[str, float] = json.loads(completed.stdout)
    return result


def main() -> None:
    from fileapi.convert.pdf_cost import _Walker
    from fileapi.convert.pdf_io import open_pdf

    print(f"{'PDFium at 150 dpi':<48} {'CPU s':>8} {'predicted':>10} {'peak MiB':>9} {'predicted':>10}")
    for name, build in PDF_CASES.items():
        data = build()
        pdf = open_pdf(data)
        cost = _Walker().page(pdf.pages[0].obj, 1)
        got = measured("pdf", data)
        print(
            f"{name:<48} {got['seconds']:8.2f} {cost.seconds:10.2f} {got['peak_mib']:9.0f} "
            f"{cost.peak_bytes / 2**20:10.0f}"
        )
    print(f"\n{'libjpeg (Pillow), progressive scans':<48} {'CPU s':>8} {'predicted':>10}")
    for name, (side, scans) in JPEG_CASES.items():
        got = measured("jpeg", jpeg_of_scans(side, scans))
        print(f"{name:<48} {got['seconds']:8.2f} {jpeg_scans.decoding_seconds(scans, (side, side)):10.2f}")


if __name__ == "__main__":
    main()
