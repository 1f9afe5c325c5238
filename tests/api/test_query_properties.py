"""Query parameters through the API: any text for a bounded or enumerated parameter is answered 400
invalid_input (or the operation's own answer), never a 5xx and never FastAPI's 422."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.pdf_fixtures import make_pdf

QUERY_CASES = [
    ("/v1/image/resize", {"width": None, "height": "10"}),
    ("/v1/image/resize", {"fit": None, "width": "5"}),
    ("/v1/image/convert", {"to": None}),
    ("/v1/image/compress", {"quality": None}),
    ("/v1/image/rotate", {"degrees": None}),
    ("/v1/image/crop", {"x": None, "y": "0", "width": "1", "height": "1"}),
    ("/v1/data/base64-encode", {"urlSafe": None}),
    ("/v1/data/json-format", {"indent": None}),
    ("/v1/data/csv-to-json", {"delimiter": None}),
    ("/v1/file/hash", {"algorithm": None}),
    ("/v1/render/svg-to-png", {"scale": None}),
    ("/v1/pdf/render-page", {"dpi": None}),
    ("/v1/pdf/split", {"ranges": None}),
    ("/v1/pdf/watermark", {"text": "x", "opacity": None}),
]
PNG_1X1 = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8ffff3f0005fe02fe0def46b80000000049454e44ae426082"
)
SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>'


@pytest.fixture(scope="module")
def pdf_page() -> bytes:
    return make_pdf(["one page"])


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(case=st.sampled_from(QUERY_CASES), value=st.text(max_size=12) | st.integers().map(str))
def test_query_parameters_are_answered_with_contract_statuses(
    api: TestClient, key: str, pdf_page: bytes, case: tuple[str, dict[str, str | None]], value: str
) -> None:
    path, template = case
    params = {name: value if given is None else given for name, given in template.items()}
    body = SVG if "svg" in path else pdf_page if "/pdf/" in path else PNG_1X1 if "/image/" in path else b"a,b\n1,2\n"
    if path.endswith("json-format"):
        body = b'{"a": 1}'
    response = api.post(path, params=params, content=body, headers={"Authorization": f"Bearer {key}"})
    assert response.status_code in (200, 400, 413), (path, params, response.text[:200])
    if response.status_code != 200:
        assert response.json()["error"] in ("invalid_input", "unsupported_format", "too_large")
