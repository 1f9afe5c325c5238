"""SVG rendering through the HTTP app against resvg's own reference renders in ../shared/corpus/resvg."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from PIL import Image, ImageChops, ImageStat

from tests.helpers import CORPUS, corpus_dir, post_bytes

pytestmark = pytest.mark.corpus

TESTS = CORPUS / "resvg" / "crates" / "resvg" / "tests" / "tests"
CASES = sorted(TESTS.rglob("*.svg")) if TESTS.is_dir() else []
# Mean absolute difference per channel (0-255) allowed against the reference render.
MAX_MEAN_DIFFERENCE = 2.0
# Where we differ from the reference by design, or by resvg version, with the reason.
KNOWN_DIFFERENCES = {
    "structure/image/external-png.svg": "external files are never read",
    "structure/svg/no-size.svg": "an SVG without any size gets 300 x 150, not its content's bounding box",
    "filters/filter-functions/blur-function-mm-value.svg": "14/255: resvg-py's resvg differs from the reference",
}
REFUSED = {
    "structure/svg/zero-size.svg": "invalid size",
    "structure/svg/negative-size.svg": "invalid size",
}


def test_corpus_is_present() -> None:
    corpus_dir("resvg")
    assert len(CASES) >= 68


@pytest.mark.parametrize("path", CASES, ids=[str(p.relative_to(TESTS)) for p in CASES])
def test_render_matches_the_reference(path: Path, api: TestClient, key: str) -> None:
    name = str(path.relative_to(TESTS))
    reference_path = path.with_suffix(".png")
    if name in REFUSED:
        refused = post_bytes(api, key, "/v1/render/svg-to-png", path.read_bytes())
        assert refused.status_code == 400 and REFUSED[name] in refused.json()["message"]
        return
    reference = Image.open(reference_path).convert("RGBA") if reference_path.exists() else None
    width = str(reference.width if reference else 300)
    response = post_bytes(api, key, "/v1/render/svg-to-png", path.read_bytes(), width=width)
    assert response.status_code == 200, response.text
    rendered = Image.open(io.BytesIO(response.content))
    if reference is None or name in KNOWN_DIFFERENCES:
        return
    assert rendered.size == reference.size
    difference = sum(ImageStat.Stat(ImageChops.difference(rendered.convert("RGBA"), reference)).mean) / 4
    assert difference <= MAX_MEAN_DIFFERENCE
