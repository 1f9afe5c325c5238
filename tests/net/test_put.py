"""put_file: a presigned PUT to moto's S3, retries with backoff against a local server, per-file failures, and the
checks of headers and addresses."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import TYPE_CHECKING

import boto3
import pytest

from fileapi.errors import InvalidInput, OutputFailed
from fileapi.local import dynamo
from fileapi.net.addresses import DEPLOYED, EgressPolicy
from fileapi.net.put import MAX_HEADERS, check_headers, put_file
from tests.net.conftest import LOCAL
from tests.net.servers import LocalServer, body_of

if TYPE_CHECKING:
    from mypy_boto3_s3.client import S3Client

FIELD = "output.put[0].url"


@pytest.fixture()
def s3(dynamodb_endpoint: str) -> S3Client:
    """moto's S3 on the session's endpoint (moto serves every service on one port)."""
    return boto3.client(
        "s3",
        endpoint_url=dynamodb_endpoint,
        region_name="us-east-1",
        aws_access_key_id=dynamo.LOCAL_CREDENTIALS["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=dynamo.LOCAL_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
    )


@pytest.fixture()
def result_file(tmp_path: Path) -> Path:
    path = tmp_path / "out.pdf"
    path.write_bytes(body_of(3_000_000))
    return path


def test_a_presigned_put_to_s3_stores_the_file_with_its_headers(s3: S3Client, result_file: Path) -> None:
    bucket = f"out-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=bucket)
    url = s3.generate_presigned_url(
        "put_object", Params={"Bucket": bucket, "Key": "a/out.pdf", "ContentType": "application/pdf"}, ExpiresIn=600
    )
    result = put_file(url, result_file, field=FIELD, headers={"Content-Type": "application/pdf"}, policy=LOCAL)
    assert (result.ok, result.status, result.attempts, result.error) == (True, 200, 1, None)
    stored = s3.get_object(Bucket=bucket, Key="a/out.pdf")
    assert stored["ContentType"] == "application/pdf"
    assert stored["Body"].read() == result_file.read_bytes()


def test_a_put_refused_by_the_storage_is_reported_not_retried(server: LocalServer, result_file: Path) -> None:
    slept: list[float] = []
    result = put_file(server.url("/status/403"), result_file, field=FIELD, policy=LOCAL, sleep=slept.append)
    assert (result.ok, result.status, result.attempts, slept) == (False, 403, 1, [])
    assert isinstance(result.error, OutputFailed)
    assert result.error.message == f"{FIELD}: the storage at 127.0.0.1 answered 403 (SlowDown)"


def test_a_5xx_is_retried_with_backoff_until_it_succeeds(server: LocalServer, result_file: Path) -> None:
    server.planned = [503, 500]
    slept: list[float] = []
    result = put_file(server.url("/store/out"), result_file, field=FIELD, policy=LOCAL, sleep=slept.append)
    assert (result.ok, result.status, result.attempts, slept) == (True, 200, 3, [1.0, 2.0])
    assert server.stored["out"] == result_file.read_bytes()
    assert [request[2]["content-length"] for request in server.requests] == ["3000000"] * 3


def test_every_attempt_failing_gives_a_failure_result(server: LocalServer, result_file: Path) -> None:
    server.planned = [503] * 10
    slept: list[float] = []
    result = put_file(server.url("/store/out"), result_file, field=FIELD, policy=LOCAL, sleep=slept.append)
    assert (result.ok, result.status, result.attempts, slept) == (False, 503, 4, [1.0, 2.0, 4.0])
    assert result.error is not None
    assert result.error.message == f"{FIELD}: the storage at 127.0.0.1 answered 503 (InternalError) after 4 attempts"
    assert (result.error.code, result.error.http_status) == ("output_failed", 502)
    assert "out" not in server.stored


def test_a_storage_that_cannot_be_reached_is_retried(server: LocalServer, result_file: Path) -> None:
    port = server.port
    server.close()
    slept: list[float] = []
    result = put_file(
        f"http://127.0.0.1:{port}/store/out",
        result_file,
        field=FIELD,
        policy=LOCAL,
        attempts=2,
        backoff_seconds=0.5,
        sleep=slept.append,
    )
    assert (result.ok, result.status, result.attempts, slept) == (False, None, 2, [0.5])
    assert result.error is not None
    assert result.error.message == (
        f"{FIELD}: the storage at 127.0.0.1 could not be reached (connection refused) after 2 attempts"
    )


def test_a_storage_that_does_not_answer_in_time_is_retried(server: LocalServer, result_file: Path) -> None:
    slept: list[float] = []
    result = put_file(
        server.url("/silent/30"),
        result_file,
        field=FIELD,
        policy=LOCAL,
        attempts=2,
        total_timeout=0.5,
        sleep=slept.append,
    )
    assert (result.ok, result.attempts, len(slept)) == (False, 2, 1)
    assert result.error is not None
    assert result.error.message.endswith("could not be reached (timed out) after 2 attempts")


def test_a_redirect_is_a_failure(server: LocalServer, result_file: Path) -> None:
    result = put_file(server.url("/redirect/1"), result_file, field=FIELD, policy=LOCAL, sleep=lambda _: None)
    assert (result.ok, result.status, result.attempts) == (False, 302, 1)
    assert result.error is not None
    assert result.error.message == f"{FIELD}: the storage at 127.0.0.1 answered 302: a presigned PUT is not redirected"


@pytest.mark.parametrize(
    "url",
    [
        "https://169.254.169.254/bucket/out",
        "https://[::ffff:127.0.0.1]/o",
        "https://2130706433/o",
        "https://0x7f000001/",
    ],
)
def test_a_private_target_is_a_failure_without_any_connection(url: str, result_file: Path) -> None:
    result = put_file(url, result_file, field=FIELD, policy=DEPLOYED, sleep=lambda _: None)
    assert (result.ok, result.status, result.attempts) == (False, None, 1)
    assert result.error is not None
    assert "is not a public address" in result.error.message


def test_a_name_resolving_to_a_private_address_is_a_failure(result_file: Path) -> None:
    policy = EgressPolicy(resolver=lambda host, port: ["10.20.30.40"])
    result = put_file("https://bucket.example.com/out?sig=1", result_file, field=FIELD, policy=policy)
    assert result.error is not None
    assert result.error.message == (
        f"{FIELD}: the URL's host 'bucket.example.com' resolves to 10.20.30.40, which is not a public address: "
        "only public addresses are reached"
    )


def test_urls_and_headers_are_refused_before_any_attempt(server: LocalServer, result_file: Path) -> None:
    with pytest.raises(InvalidInput, match=r"^output\.put\[0\]\.url: the URL holds a control character"):
        put_file(server.url("/store/out\r\nX: 1"), result_file, field=FIELD, policy=LOCAL)
    with pytest.raises(InvalidInput, match=r"^output\.put\[0\]\.url: the URL must be an absolute https:// URL"):
        put_file(server.url("/store/out"), result_file, field=FIELD, policy=DEPLOYED)
    with pytest.raises(InvalidInput, match=r"^output\.put\[0\]\.headers: the value of 'x-amz-meta-a' holds a control"):
        put_file(
            server.url("/store/out"), result_file, field=FIELD, headers={"x-amz-meta-a": "1\r\nX: 2"}, policy=LOCAL
        )
    assert server.requests == []


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ({"Content-Type": "a\nb"}, "the value of 'Content-Type' holds a control character"),
        ({"Content-Type": "caf\u00e9"}, "the value of 'Content-Type' holds a control character (CR, LF...) or a"),
        ({"Bad Name": "1"}, "'Bad Name' is not a header name"),
        ({"X-A\r\nB": "1"}, "'X-A\\r\\nB' is not a header name"),
        (
            {"Transfer-Encoding": "chunked"},
            "the header 'Transfer-Encoding' is set by the PUT itself (or is hop-by-hop)",
        ),
        ({"connection": "close"}, "the header 'connection' is set by the PUT itself"),
        ({"Host": "evil.test"}, "the header 'Host' is set by the PUT itself"),
        ({"Content-Length": "1"}, "the header 'Content-Length' is set by the PUT itself"),
        ({f"x-{n}": "1" for n in range(MAX_HEADERS + 1)}, "at most 20 headers are taken, not 21"),
        ({"x-amz-meta-a": "v" * 5000}, "the header 'x-amz-meta-a' is over 4,096 characters"),
    ],
)
def test_headers_refused(headers: dict[str, str], message: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        check_headers(headers, field="output.put[2].headers")
    assert refused.value.message.startswith(f"output.put[2].headers: {message}")


def test_headers_of_the_three_storages_are_taken() -> None:
    headers = {
        "Content-Type": "application/pdf",
        "x-amz-server-side-encryption": "AES256",
        "x-goog-meta-source": "fileapi",
        "x-ms-blob-type": "BlockBlob",
        "Cache-Control": "max-age=60, public",
    }
    assert check_headers(headers, field="h") == headers
