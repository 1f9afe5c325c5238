"""PDF benchmarks against poppler (pdftoppm, pdftotext) and qpdf's command line, in the same run."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

from bench.timing import median_seconds, row
from fileapi.convert.pdf import extract_text, merge_pdfs, render_pages, split_pdf
from fileapi.convert.pdf_edit import compress_pdf

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "py-pdf-sample-files"


def _tool(name: str) -> str | None:
    return shutil.which(name)


def _run(argv: list[str]) -> None:
    subprocess.run(argv, capture_output=True, check=True)


def bench_pdf(tmp: Path) -> None:
    print("\nPDF family")
    if not CORPUS.is_dir():
        print("  (../shared/corpus/py-pdf-sample-files is absent: skipped)")
        return
    import pikepdf

    geotopo = next(CORPUS.rglob("GeoTopo-komprimiert.pdf")).read_bytes()
    source = pikepdf.Pdf.open(io.BytesIO(geotopo))
    hundred = pikepdf.Pdf.new()
    hundred.add_pages_from(source, pages=range(100))
    buffer = io.BytesIO()
    hundred.save(buffer)
    hundred_pages = buffer.getvalue()
    hundred_path = tmp / "hundred.pdf"
    hundred_path.write_bytes(hundred_pages)

    ours = median_seconds(lambda: render_pages(hundred_pages, pages="1", dpi=150), repeat=5)
    pdftoppm = _tool("pdftoppm")
    reference = (
        median_seconds(
            lambda: _run([pdftoppm, "-r", "150", "-f", "1", "-l", "1", "-png", str(hundred_path), str(tmp / "p")]),
            repeat=5,
        )
        if pdftoppm
        else None
    )
    print(row("render page 1 at 150 dpi (PNG)", ours, reference, "pdftoppm -png"))

    ours = median_seconds(lambda: extract_text(hundred_pages), repeat=5)
    pdftotext = _tool("pdftotext")
    reference = (
        median_seconds(lambda: _run([pdftotext, str(hundred_path), str(tmp / "t.txt")]), repeat=5)
        if pdftotext
        else None
    )
    print(row("extract text, 100 pages", ours, reference, "pdftotext"))

    files = [p for p in sorted(CORPUS.rglob("*.pdf")) if "password" not in p.name]
    fifty = [files[i % len(files)] for i in range(50)]
    documents = [p.read_bytes() for p in fifty]
    merged_size = len(merge_pdfs(documents))
    ours = median_seconds(lambda: merge_pdfs(documents), repeat=3)
    qpdf = _tool("qpdf")
    if qpdf:
        merged = tmp / "merged.pdf"
        argv = [qpdf, "--empty", "--object-streams=generate", "--pages", *map(str, fifty), "--", str(merged)]
        reference = median_seconds(lambda: _run(argv), repeat=3)
        print(row("merge 50 PDFs", ours, reference, "qpdf --pages"))
        theirs = merged.stat().st_size
        print(f"  merged size: ours {merged_size:,} bytes, qpdf {theirs:,} ({merged_size / theirs:.2f}x)")
    else:
        print(row("merge 50 PDFs", ours))

    ranges = ",".join(str(n) for n in range(1, 101))
    ours = median_seconds(lambda: split_pdf(hundred_pages, ranges=ranges), repeat=3)
    if qpdf:
        reference = median_seconds(
            lambda: _run([qpdf, "--split-pages", str(hundred_path), str(tmp / "page-%d.pdf")]), repeat=3
        )
        print(row("split 100 pages into 100 PDFs", ours, reference, "qpdf --split-pages"))
    else:
        print(row("split 100 pages into 100 PDFs", ours))

    originals = [p.read_bytes() for p in files]
    ours_total = sum(compress_pdf(data).compressedSize for data in originals)
    original_total = sum(len(data) for data in originals)
    line = f"  compress {len(files)} corpus PDFs (lossless): ours saves {100 * (1 - ours_total / original_total):.1f}%"
    if qpdf:
        qpdf_total = 0
        for path in files:
            out = tmp / "q.pdf"
            _run(
                [qpdf, "--object-streams=generate", "--recompress-flate", "--compression-level=9", str(path), str(out)]
            )
            qpdf_total += min(out.stat().st_size, path.stat().st_size)
        line += f", qpdf --recompress-flate --compression-level=9 saves {100 * (1 - qpdf_total / original_total):.1f}%"
    print(line)
