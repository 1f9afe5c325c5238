"""OCR against Debian's `tesseract` command on the same noisy pages (bench/ocr_pages.py): character error rate
and CPU time per page at 150 and 300 dpi, and the error rate of pdftotext over our searchable PDF.

Both sides run one thread (the command with OMP_THREAD_LIMIT=1, as a 1-vCPU Lambda would run it; its
OpenMP threads otherwise spin on the second core) and are timed in CPU seconds, alternately. RapidOCR is
measured too when it is importable (it is not a dependency: `pip install --target DIR rapidocr==3.10.0
rapidocr-onnxruntime==1.4.4`, then PYTHONPATH=DIR), for the record of the engine choice.

    python -m bench.ocr
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path

from bench.ocr_pages import TestPage, edit_distance, normalised, test_pages
from bench.scoreboard import Goal, record
from bench.timing import cpu_seconds, median_seconds, paired_medians

SECTION = "OCR"
DPIS = (150, 300)
REPEAT = 3  # each page takes 0.3-2 s: three alternating rounds a page keep the section under 3 minutes
Engine = Callable[[bytes], str]


def _ours(png: bytes) -> str:
    from fileapi.convert.ocr_image import image_ocr

    return image_ocr(png).text


def _command(tesseract: str, folder: Path) -> Engine:
    image = folder / "page.png"
    environment = {**os.environ, "OMP_THREAD_LIMIT": "1"}

    def run(png: bytes) -> str:
        image.write_bytes(png)
        argv = [tesseract, str(image), "-", "-l", "eng"]
        return subprocess.run(argv, capture_output=True, check=True, env=environment).stdout.decode()

    return run


def _rapidocr_engines() -> dict[str, Engine]:
    """RapidOCR's two packages when importable (their models ship inside them: nothing is downloaded)."""
    engines: dict[str, Engine] = {}
    try:
        from rapidocr import RapidOCR  # type: ignore[import-not-found,unused-ignore]

        current = RapidOCR()
        engines["rapidocr 3 (PP-OCRv6)"] = lambda png: "\n".join(current(png).txts or ())
    except ImportError:
        pass
    try:
        from rapidocr_onnxruntime import RapidOCR as RapidOnnx  # type: ignore[import-not-found,unused-ignore]

        onnx = RapidOnnx()
        engines["rapidocr-onnxruntime 1.4"] = lambda png: "\n".join(text for _, text, _ in (onnx(png)[0] or ()))
    except ImportError:
        pass
    return engines


def _read_all(engine: Engine, pages: list[TestPage]) -> list[str]:
    return [engine(page.png) for page in pages]


def error_rate(engine: Engine, pages: list[TestPage]) -> float:
    """All pages' edits over all their characters of truth (percent)."""
    edits = sum(edit_distance(normalised(engine(page.png)), normalised(page.truth)) for page in pages)
    return 100 * edits / sum(len(normalised(page.truth)) for page in pages)


def seconds_per_page(ours: Engine, anchor: Engine, pages: list[TestPage]) -> tuple[float, float]:
    """Median CPU seconds a page of ours and of the anchor, run alternately, averaged over the pages."""
    pairs = [
        paired_medians(partial(ours, page.png), partial(anchor, page.png), repeat=REPEAT, clock=cpu_seconds)
        for page in pages
    ]
    return sum(pair[0] for pair in pairs) / len(pairs), sum(pair[1] for pair in pairs) / len(pairs)


def searchable_error_rate(pages: list[TestPage], folder: Path) -> float | None:
    """pdftotext's error rate over pdf_ocr's output for the pages made into one scanned PDF (Pillow's)."""
    from PIL import Image

    from fileapi.convert.ocr_pdf import pdf_ocr

    pdftotext = shutil.which("pdftotext")
    if pdftotext is None:
        return None
    images = [Image.open(io.BytesIO(page.png)) for page in pages]
    scanned = io.BytesIO()
    images[0].save(scanned, "PDF", resolution=pages[0].dpi, save_all=True, append_images=images[1:])
    searchable = pdf_ocr(scanned.getvalue())
    assert isinstance(searchable, bytes)
    path = folder / "searchable.pdf"
    path.write_bytes(searchable)
    text = subprocess.run([pdftotext, "-enc", "UTF-8", str(path), "-"], capture_output=True, check=True).stdout
    found = text.decode().split("\f")
    edits = sum(edit_distance(normalised(f), normalised(page.truth)) for f, page in zip(found, pages, strict=False))
    return 100 * edits / sum(len(normalised(page.truth)) for page in pages)


def bench_ocr(tmp: Path) -> None:
    print("\nOCR: noisy pages rendered from the corpus's text PDFs (bench/ocr_pages.py), truth from pdftotext")
    pages = test_pages(DPIS)
    if not pages:
        print("  (../shared/corpus/py-pdf-sample-files or pdftotext is absent: skipped)")
        return
    tesseract = shutil.which("tesseract")
    missing = "" if tesseract else "tesseract not installed: apt-get install tesseract-ocr tesseract-ocr-eng"
    command = _command(tesseract, tmp) if tesseract else None
    others = _rapidocr_engines()
    print(f"  {len(pages) // len(DPIS)} pages, {sum(len(p.truth) for p in pages) // len(DPIS):,} characters each dpi")
    command_cers: dict[int, float | None] = {}
    for dpi in DPIS:
        chosen = [page for page in pages if page.dpi == dpi]
        ours_cer = error_rate(_ours, chosen)
        command_cer = command_cers[dpi] = error_rate(command, chosen) if command else None
        record(SECTION, f"character error rate at {dpi} dpi", ours_cer, "%", Goal(max_ratio=1.0),
               anchor=command_cer, anchor_name="tesseract command", missing=missing)  # fmt: skip
        if command:
            ours_s, command_s = seconds_per_page(_ours, command, chosen)
        else:
            ours_s, command_s = seconds_per_page(_ours, lambda png: "", chosen)
        anchor_ms = command_s * 1000 if command else None
        record(SECTION, f"CPU time per page at {dpi} dpi", ours_s * 1000, "ms", Goal(max_ratio=1.0),
               anchor=anchor_ms, anchor_name="tesseract command", missing=missing)  # fmt: skip
        line = f"  {dpi} dpi: ours (tesserocr) CER {ours_cer:.2f}%, {ours_s * 1000:.0f} ms CPU a page"
        if command:
            line += f"; tesseract command CER {command_cer:.2f}%, {command_s * 1000:.0f} ms"
        print(line)
        for name, engine in others.items():
            seconds = median_seconds(partial(_read_all, engine, chosen), repeat=1, clock=cpu_seconds)
            print(f"  {dpi} dpi: {name} CER {error_rate(engine, chosen):.2f}%, {seconds / len(chosen) * 1000:.0f} ms")
    chosen = [page for page in pages if page.dpi == max(DPIS)]
    with tempfile.TemporaryDirectory(dir=tmp) as folder:
        searchable = searchable_error_rate(chosen, Path(folder))
    if searchable is not None:
        anchor = command_cers[max(DPIS)]
        record(SECTION, f"pdftotext over our searchable PDF, error rate at {max(DPIS)} dpi", searchable, "%",
               Goal(max_ratio=1.0), anchor=anchor, anchor_name="tesseract command's text", missing=missing)  # fmt: skip
        print(f"  pdftotext over pdf/ocr's searchable PDF ({max(DPIS)} dpi pages): CER {searchable:.2f}%")


if __name__ == "__main__":
    from bench.scoreboard import print_scoreboard

    with tempfile.TemporaryDirectory() as folder:
        bench_ocr(Path(folder))
    print_scoreboard()
