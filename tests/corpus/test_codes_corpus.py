"""Decoding the zxing-cpp sample images in ../shared/corpus through the HTTP app (skipped when absent)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from fileapi.convert.barcodes import upce_to_upca
from tests.helpers import corpus_dir, post_bytes

pytestmark = pytest.mark.corpus

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".webp", ".gif"}
# Measured: 82 of the 85 samples that have an expected text (zxing-cpp with our retries);
# zbarimg decodes 47 of them (see make bench).
MIN_DECODED = 82


def samples_root() -> Path:
    root = corpus_dir("zxing-cpp")
    nested = root / "test" / "samples"
    return nested if nested.is_dir() else root


def as_zxing_text(code: dict[str, str]) -> str:
    """Our reported text in the form zxing-cpp's expected .txt files use."""
    if code["format"] == "upca":
        return "0" + code["text"]
    if code["format"] == "upce":
        return "0" + upce_to_upca(code["text"])
    return code["text"]


def read_codes(api: TestClient, key: str, image: Path) -> list[dict[str, str]]:
    response = post_bytes(api, key, "/v1/barcode/read", image.read_bytes())
    assert response.status_code == 200, response.text
    codes: list[dict[str, str]] = response.json()["codes"]
    return codes


def normalised(text: str) -> str:
    return text.replace("\r\n", "\n")


def test_samples_decode_to_their_expected_text(api: TestClient, key: str) -> None:
    root = samples_root()
    decoded, wrong, missed = 0, [], []
    images = sorted(p for p in root.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
    for image in images:
        expected_path = image.with_suffix(".txt")
        if image.parent.name.startswith("falsepositives") or not expected_path.exists():
            continue
        expected = normalised(expected_path.read_text(encoding="utf-8", errors="replace"))
        texts = [normalised(as_zxing_text(code)) for code in read_codes(api, key, image)]
        if expected in texts:
            decoded += 1
        elif texts:
            wrong.append((image.relative_to(root), texts))
        else:
            missed.append(image.relative_to(root))
    assert wrong == []
    assert decoded >= MIN_DECODED, f"decoded {decoded}; missed {missed}"


def test_false_positive_images_give_no_code(api: TestClient, key: str) -> None:
    root = samples_root()
    images = sorted(p for p in root.rglob("*") if p.parent.name.startswith("falsepositives"))
    assert images
    for image in images:
        if image.suffix.lower() in IMAGE_SUFFIXES:
            assert read_codes(api, key, image) == [], image.name
