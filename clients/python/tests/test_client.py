"""The Python SDK end to end against `fileapi run`: conversions, JSON, usage, errors, retries."""

from __future__ import annotations

import asyncio
import hashlib
import io
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import LocalApi
from fileapi_client import AsyncFileApi, FileApi, RetryPolicy
from fileapi_client.errors import ApiError, InvalidInput, RateLimited, Unauthorized, UnsupportedFormat
from PIL import Image
from pypdf import PdfReader
from sample_files import pdf, png

pytestmark = pytest.mark.server


@pytest.fixture()
def api(local_api: LocalApi) -> Iterator[FileApi]:
    with FileApi(local_api.api_key, base_url=local_api.base_url) as client:
        yield client


def test_image_convert_from_bytes_path_file_object_and_stream(api: FileApi, tmp_path: Path) -> None:
    source = tmp_path / "in.png"
    source.write_bytes(png())
    chunks = (png()[index : index + 100] for index in range(0, len(png()), 100))  # a stream of chunks
    for given in (png(), source, str(source), source.open("rb"), chunks):
        result = api.image_convert(given, to="webp")
        assert result.status == 200
        assert result.content_type == "image/webp"
        assert result.data[:4] == b"RIFF" and result.data[8:12] == b"WEBP"
        assert Image.open(io.BytesIO(result.data)).size == (64, 48)
        assert isinstance(result.quota_remaining, int)
        # the dev key is on business: a burst of 800 spread over 2 items of 408 tokens (2% headroom)
        assert result.rate_limit_limit == 816 and isinstance(result.rate_limit_remaining, int)
        assert result.request_id
    saved = api.image_resize(png(), width=32, format="png").save(tmp_path / "out.png")
    assert Image.open(saved).size == (32, 24)


def test_pdf_merge_keeps_order(api: FileApi, tmp_path: Path) -> None:
    second = tmp_path / "b.pdf"
    second.write_bytes(pdf(2, width=300, height=400))
    result = api.pdf_merge([pdf(1), second])
    assert result.content_type == "application/pdf"
    reader = PdfReader(io.BytesIO(result.data))
    assert [(float(page.mediabox.width), float(page.mediabox.height)) for page in reader.pages] == [
        (612, 792),
        (300, 400),
        (300, 400),
    ]


def test_json_endpoints_are_typed_and_exact(api: FileApi) -> None:
    formatted = api.data_json_format('{"price":1.50,"big":12345678901234567890}', indent=2)
    assert formatted.data == '{\n  "price": 1.50,\n  "big": 12345678901234567890\n}\n'
    assert api.data_json_minify({"a": [1, 2]}).data == '{"a":[1,2]}'
    info = api.pdf_info(pdf(3, width=200, height=100))
    assert info.data["pageCount"] == 3
    assert info.data["pageSizes"][0] == {"width": 200, "height": 100}
    digest = api.file_hash(b"hello", algorithm="sha256")
    assert digest.data["hex"] == hashlib.sha256(b"hello").hexdigest()
    assert api.color_convert(color="teal").data["hex"] == "#008080"
    assert api.data_csv_to_json("a,b\n1,2\n").data == [{"a": "1", "b": "2"}]
    assert api.text_diff(a="x\n", b="y\n").data["added"] == 1


def test_qr_round_trip_and_public_operations(api: FileApi) -> None:
    code = api.qr_generate(text="https://example.com", size=4)
    assert code.content_type == "image/png"
    assert api.qr_read(code.data).data == {"text": "https://example.com", "format": "qr_code"}
    assert api.health().data == "ok"
    assert "/v1/image/resize" in api.openapi_json().data["paths"]


def test_qr_generate_gives_bytes_for_png_and_text_for_svg(api: FileApi) -> None:
    png = api.qr_generate(text="https://example.com")
    assert isinstance(png.data, bytes) and png.data.startswith(b"\x89PNG")
    svg = api.qr_generate(text="https://example.com", format="svg")
    assert isinstance(svg.data, str) and svg.data.lstrip().startswith(("<?xml", "<svg"))
    assert svg.content_type.startswith("image/svg+xml")


def test_usage_counts_the_calls(api: FileApi) -> None:
    before = api.usage().data
    api.data_base64_encode(b"hi")
    after = api.usage()
    assert after.data["plan"] == "business"
    assert after.data["used_this_month"] == before["used_this_month"] + 1
    assert after.data["remaining"] == after.data["quota_monthly"] - after.data["used_this_month"]


def test_errors_raise_the_class_of_their_code(api: FileApi, local_api: LocalApi) -> None:
    with pytest.raises(UnsupportedFormat) as caught:
        api.image_convert(b"not an image at all", to="png")
    assert caught.value.status == 400 and caught.value.code == "unsupported_format"
    assert caught.value.message and caught.value.request_id
    with pytest.raises(InvalidInput, match="quality"):
        api.image_convert(png(), to="jpeg", quality=0)
    with pytest.raises(InvalidInput):
        api.data_base64_decode("%%%")
    stranger = FileApi("sk_live_" + "x" * 43, base_url=local_api.base_url)
    with pytest.raises(Unauthorized) as denied:
        stranger.usage()
    stranger.close()
    assert isinstance(denied.value, ApiError) and denied.value.status == 401


def _burst(client: FileApi, count: int) -> tuple[int, list[BaseException]]:
    successes: list[int] = []
    failures: list[BaseException] = []
    barrier = threading.Barrier(count)

    def call() -> None:
        barrier.wait()
        try:
            client.data_base64_encode(b"x")
            successes.append(1)
        except BaseException as error:
            failures.append(error)

    threads = [threading.Thread(target=call) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return len(successes), failures


def test_rate_limited_calls_are_retried_after_retry_after(local_api: LocalApi) -> None:
    key = local_api.create_key("starter", "retry@example.com")  # burst 5, 2 per second
    with FileApi(key, base_url=local_api.base_url, retry=RetryPolicy(max_retries=10)) as client:
        successes, failures = _burst(client, 12)
    assert failures == [] and successes == 12


def test_retry_can_be_switched_off(local_api: LocalApi) -> None:
    # a bucket of 5 that refills one token in 100 s: however slowly the 12 calls are answered, 5 get through
    local_api.create_plan("five-then-wait", rate=0.01, burst=5, quota=1000)
    key = local_api.create_key("five-then-wait", "noretry@example.com")
    with FileApi(key, base_url=local_api.base_url, retry=RetryPolicy(enabled=False)) as client:
        successes, failures = _burst(client, 12)
    assert (successes, len(failures)) == (5, 7)
    assert all(isinstance(error, RateLimited) for error in failures)
    assert all(error.retry_after is not None and error.retry_after >= 1 for error in failures)  # type: ignore[attr-defined]


def test_async_client(local_api: LocalApi) -> None:
    async def main() -> None:
        async with AsyncFileApi(local_api.api_key, base_url=local_api.base_url) as client:
            converted, info = await asyncio.gather(client.image_convert(png(), to="jpeg"), client.pdf_info(pdf(2)))
            assert converted.content_type == "image/jpeg" and converted.data[:2] == b"\xff\xd8"
            assert info.data["pageCount"] == 2
            with pytest.raises(InvalidInput):
                await client.data_url_decode("%zz")

    asyncio.run(main())
