"""Codes and Render benchmarks: QR latency, corpus decode rate against zbarimg, SVG render against rsvg-convert."""

from __future__ import annotations

import io
import shutil
import subprocess
import time
from pathlib import Path

from bench.scoreboard import Goal, record
from bench.timing import median_seconds, row
from fileapi.convert.barcodes import upce_to_upca
from fileapi.convert.code_reading import read_codes
from fileapi.convert.qr import generate_qr
from fileapi.convert.render import svg_to_png

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
MIN_DECODED = 82  # the rate before the downscaled-first passes (tests/corpus/test_codes_corpus.py holds it too)
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".webp", ".gif"}


def bench_codes() -> None:
    print("\nCodes family")
    text = "https://example.com/" + "x" * 80
    print(row("QR generate, PNG, 100 characters", median_seconds(lambda: generate_qr(text), number=20)))
    photo = _qr_photo()
    print(row("QR read, 1 MP photo-like image", median_seconds(lambda: read_codes(photo, qr_only=True), repeat=5)))
    _corpus_rates()


def _qr_photo() -> bytes:
    """A QR code pasted slightly rotated into a noisy 1-megapixel scene."""
    from PIL import Image, ImageFilter

    code = Image.open(io.BytesIO(generate_qr("https://example.com/photo", size=8).data)).convert("L")
    scene = Image.effect_noise((1150, 870), 40).convert("L")
    scene.paste(code.rotate(12, expand=True, fillcolor=255), (380, 250))
    out = io.BytesIO()
    scene.filter(ImageFilter.GaussianBlur(1)).save(out, "JPEG", quality=80)
    return out.getvalue()


def _samples() -> list[tuple[Path, str]]:
    root = CORPUS / "zxing-cpp" / "test" / "samples"
    if not root.is_dir():
        return []
    cases = []
    for image in sorted(p for p in root.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES):
        expected = image.with_suffix(".txt")
        if expected.exists() and not image.parent.name.startswith("falsepositives"):
            cases.append((image, expected.read_text(encoding="utf-8", errors="replace").replace("\r\n", "\n")))
    return cases


def _corpus_rates() -> None:
    cases = _samples()
    if not cases:
        print("  (../shared/corpus/zxing-cpp is absent: decode rates skipped)")
        record("Codes", "zxing-cpp corpus samples decoded", 0, "", Goal(min_value=MIN_DECODED),
               missing="../shared/corpus/zxing-cpp absent")  # fmt: skip
        return
    started = time.perf_counter()
    ours = 0
    for image, expected in cases:
        texts = []
        for code in read_codes(image.read_bytes()):
            text = code.text
            if code.format == "upca":
                text = "0" + text
            elif code.format == "upce":
                text = "0" + upce_to_upca(text)
            texts.append(text.replace("\r\n", "\n"))
        ours += expected in texts
    ours_seconds = time.perf_counter() - started
    print(f"  zxing-cpp corpus: ours {ours}/{len(cases)} decoded in {ours_seconds * 1000:.0f} ms", end="")
    record("Codes", f"zxing-cpp corpus samples decoded (of {len(cases)})", ours, "", Goal(min_value=MIN_DECODED))
    if shutil.which("zbarimg") is None:
        print("  (zbarimg not installed)")
        return
    started = time.perf_counter()
    zbar = 0
    for image, expected in cases:
        out = subprocess.run(
            ["zbarimg", "--quiet", "--raw", str(image)], capture_output=True, text=True, errors="replace"
        )
        found = out.stdout.rstrip("\n").replace("\r\n", "\n")
        zbar += found == expected or found == expected.lstrip("0") or ("0" + found) == expected
    zbar_seconds = time.perf_counter() - started
    print(
        f"; zbarimg {zbar}/{len(cases)} in {zbar_seconds * 1000:.0f} ms (time ratio {ours_seconds / zbar_seconds:.2f})"
    )


def bench_render() -> None:
    print("\nRender family")
    root = CORPUS / "resvg" / "crates" / "resvg" / "tests" / "tests"
    if not root.is_dir():
        print("  (../shared/corpus/resvg is absent: skipped)")
        return
    files = [p for p in sorted(root.rglob("*.svg")) if "size" not in p.stem]
    documents = [p.read_bytes() for p in files]

    def ours() -> None:
        for document in documents:
            svg_to_png(document, width=300)

    ours_seconds = median_seconds(ours, repeat=5)
    tool = shutil.which("rsvg-convert")
    if tool is None:
        print(row(f"render {len(files)} corpus SVGs at 300 px", ours_seconds))
        print("  (rsvg-convert not installed: apt-get install librsvg2-bin)")
        return

    def rsvg() -> None:
        for path in files:
            subprocess.run([tool, "-w", "300", str(path)], capture_output=True)

    rsvg_seconds = median_seconds(rsvg, repeat=3)
    print(row(f"render {len(files)} corpus SVGs at 300 px", ours_seconds, rsvg_seconds, "rsvg-convert"))
