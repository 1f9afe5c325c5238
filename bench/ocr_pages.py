"""The OCR benchmark's test pages and its measure: pages rendered from the corpus's text PDFs with scanner
noise, the PDF's own text (pdftotext) as the truth, and the character error rate against it."""

from __future__ import annotations

import io
import random
import shutil
import subprocess
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL import Image

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "py-pdf-sample-files"
# (file, 1-based page): English text pages of five producers (LibreOffice, pdflatex one and two columns,
# Google Docs, PDF/A): about 9,000 characters of truth in all.
PAGES = (
    ("002-trivial-libre-office-writer/002-trivial-libre-office-writer.pdf", 1),
    ("004-pdflatex-4-pages/pdflatex-4-pages.pdf", 2),
    ("011-google-doc-document/google-doc-document.pdf", 1),
    ("021-pdfa/crazyones-pdfa.pdf", 1),
    ("026-latex-multicolumn/multicolumn.pdf", 1),
)
NOISE_LEVELS = 48  # uniform grey noise of +-24 levels on 0..255, after a 0.6 px blur: a plain office scan


@dataclass(frozen=True)
class TestPage:
    name: str
    dpi: int
    png: bytes
    truth: str


def normalised(text: str) -> str:
    """Text compared as characters: NFKC (ligatures split, as OCR reads them), runs of white space as one."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (insertions, deletions, substitutions), by Myers' bit-parallel algorithm with
    Python integers as bit vectors: O(len(a) * len(b) / 64) word operations."""
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return len(a)
    masks: dict[str, int] = {}
    for index, char in enumerate(b):
        masks[char] = masks.get(char, 0) | (1 << index)
    full = (1 << len(b)) - 1
    top = 1 << (len(b) - 1)
    plus, minus, score = full, 0, len(b)
    for char in a:
        equal = masks.get(char, 0)
        vertical = equal | minus
        horizontal = (((equal & plus) + plus) ^ plus) | equal
        up = minus | (~(horizontal | plus) & full)
        down = plus & horizontal
        if up & top:
            score += 1
        elif down & top:
            score -= 1
        up = ((up << 1) | 1) & full
        down = (down << 1) & full
        plus = down | (~(vertical | up) & full)
        minus = up & vertical
    return score


def character_error_rate(found: str, truth: str) -> float:
    """Edits to turn the OCR text into the truth, per character of the truth (both normalised)."""
    reference = normalised(truth)
    return edit_distance(normalised(found), reference) / max(1, len(reference))


def scanned(image: Image.Image, *, seed: int) -> bytes:
    """The page as a scanner gives it: greyscale, slightly blurred, with uniform noise (PNG)."""
    from PIL import Image, ImageChops, ImageFilter

    page = image.convert("L").filter(ImageFilter.GaussianBlur(0.6))
    noise_bytes = random.Random(seed).randbytes(page.width * page.height)
    noise = Image.frombytes("L", page.size, noise_bytes).point(lambda value: value * NOISE_LEVELS // 256)
    noisy = ImageChops.add(page, noise, scale=1.0, offset=-NOISE_LEVELS // 2)
    out = io.BytesIO()
    noisy.save(out, "PNG")
    return out.getvalue()


def test_pages(dpis: tuple[int, ...] = (150, 300)) -> list[TestPage]:
    """Every page of PAGES at each resolution (empty when the corpus or pdftotext is absent)."""
    import pypdfium2 as pdfium

    pdftotext = shutil.which("pdftotext")
    if not CORPUS.is_dir() or pdftotext is None:
        return []
    pages = []
    for seed, (name, number) in enumerate(PAGES):
        path = CORPUS / name
        argv = [pdftotext, "-f", str(number), "-l", str(number), "-enc", "UTF-8", str(path), "-"]
        truth = subprocess.run(argv, capture_output=True, check=True).stdout.decode()
        for dpi in dpis:
            image = pdfium.PdfDocument(path)[number - 1].render(scale=dpi / 72).to_pil()
            pages.append(TestPage(f"{path.stem} p{number}", dpi, scanned(image, seed=seed), truth))
    return pages
