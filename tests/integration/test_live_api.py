"""Black-box tests of a running API: a deployed stack (CI after each deploy) or `fileapi run`.

Set FILEAPI_BASE_URL and FILEAPI_API_KEY; without them every test here is skipped.
"""

from __future__ import annotations

import base64
import io

import httpx
import pytest

from tests.integration.live import API_KEY, BASE_URL, LIVE

pytestmark = LIVE


@pytest.fixture(scope="module")
def client() -> httpx.Client:
    return httpx.Client(base_url=BASE_URL, headers={"Authorization": f"Bearer {API_KEY}"}, timeout=30)


def test_health_needs_no_key() -> None:
    response = httpx.get(f"{BASE_URL}/health", timeout=10)
    assert (response.status_code, response.text) == (200, "ok")


def test_no_key_is_401() -> None:
    response = httpx.post(f"{BASE_URL}/v1/data/base64-encode", content=b"x", timeout=10)
    assert (response.status_code, response.json()["error"]) == (401, "unauthorized")


def test_binary_round_trip_and_metering_headers(client: httpx.Client) -> None:
    data = bytes(range(256))
    remaining = client.get("/v1/usage").json()["remaining"]  # not counted
    encoded = client.post("/v1/data/base64-encode", content=data)
    assert encoded.status_code == 200
    assert int(encoded.headers["X-Quota-Remaining"]) == remaining - 1  # this request, counted once
    decoded = client.post("/v1/data/base64-decode", content=encoded.content)
    assert decoded.content == data
    assert int(decoded.headers["X-Quota-Remaining"]) == remaining - 2
    # The same bucket answers both: its size does not change, and each request takes a token from it.
    assert decoded.headers["RateLimit-Limit"] == encoded.headers["RateLimit-Limit"]
    assert int(encoded.headers["RateLimit-Remaining"]) < int(encoded.headers["RateLimit-Limit"])


def test_invalid_input_is_an_api_error(client: httpx.Client) -> None:
    response = client.post("/v1/data/json-format", content=b"{nope")
    assert (response.status_code, response.json()["error"]) == (400, "invalid_input")


def test_image_pdf_and_codes(client: httpx.Client) -> None:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (64, 48), (200, 30, 30)).save(out, "PNG")
    webp = client.post("/v1/image/convert", params={"to": "webp"}, content=out.getvalue())
    assert (webp.status_code, webp.headers["content-type"]) == (200, "image/webp")
    qr = client.post("/v1/qr/generate", json={"text": "integration"})
    assert client.post("/v1/qr/read", content=qr.content).json()["text"] == "integration"
    pdf = base64.b64decode(
        "JVBERi0xLjQKMSAwIG9iajw8L1R5cGUvQ2F0YWxvZy9QYWdlcyAyIDAgUj4+ZW5kb2JqCjIgMCBvYmo8PC9UeXBlL1BhZ2VzL0tpZHNbMyAw"
        "IFJdL0NvdW50IDE+PmVuZG9iagozIDAgb2JqPDwvVHlwZS9QYWdlL1BhcmVudCAyIDAgUi9NZWRpYUJveFswIDAgNjEyIDc5Ml0+PmVuZG9i"
        "agp0cmFpbGVyPDwvUm9vdCAxIDAgUj4+CiUlRU9GCg=="
    )
    info = client.post("/v1/pdf/info", content=pdf)
    assert info.json()["pageCount"] == 1


def test_usage(client: httpx.Client) -> None:
    usage = client.get("/v1/usage").json()
    assert set(usage) == {"plan", "quota_monthly", "used_this_month", "remaining", "resets_at", "status", "daily"}
    assert sum(day["requests"] for day in usage["daily"]) == usage["used_this_month"]
