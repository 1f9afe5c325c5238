"""fetch_to_file against a local HTTP(S) server: sizes and caps, redirects, deadlines, refusals and pinning."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from fileapi.errors import InputTooLarge, InputUnreachable, InvalidInput
from fileapi.net.addresses import DEPLOYED, EgressPolicy
from fileapi.net.fetch import MAX_REDIRECTS, Fetched, fetch_to_file
from tests.net.conftest import LOCAL
from tests.net.servers import LocalServer, body_of
from tests.net.tls import self_signed

FIELD = "inputs[1].url"


def fetch(
    url: str, path: Path, *, max_bytes: int = 10_000_000, total: float = 10.0, policy: EgressPolicy = LOCAL
) -> Fetched:
    return fetch_to_file(
        url, path, max_bytes=max_bytes, connect_timeout=2.0, total_timeout=total, field=FIELD, policy=policy
    )


def names(mapping: dict[str, str], calls: list[str] | None = None) -> EgressPolicy:
    """A local policy whose resolver answers from `mapping` (and notes each name asked)."""

    def resolver(host: str, port: int) -> Sequence[str]:
        if calls is not None:
            calls.append(host)
        if host not in mapping:
            raise OSError("no such name")
        return [mapping[host]]

    return EgressPolicy(local=True, resolver=resolver)


def test_a_file_with_its_length_is_written_whole(server: LocalServer, tmp_path: Path) -> None:
    path = tmp_path / "in.pdf"
    fetched = fetch(server.url("/file/1000000"), path)
    assert path.read_bytes() == body_of(1_000_000)
    assert (fetched.size_bytes, fetched.content_type, fetched.redirects) == (1_000_000, "application/pdf", 0)
    assert server.requests[0][2]["accept-encoding"] == "identity"


def test_a_chunked_file_is_written_whole(server: LocalServer, tmp_path: Path) -> None:
    path = tmp_path / "in"
    assert fetch(server.url("/chunked/123457"), path).size_bytes == 123_457
    assert hashlib.sha256(path.read_bytes()).digest() == hashlib.sha256(body_of(123_457)).digest()


def test_redirects_are_followed_up_to_the_bound(server: LocalServer, tmp_path: Path) -> None:
    fetched = fetch(server.url(f"/redirect/{MAX_REDIRECTS}"), tmp_path / "in")
    assert (fetched.redirects, fetched.size_bytes) == (MAX_REDIRECTS, 1000)
    assert fetched.url == server.url("/redirect/0")


@pytest.mark.parametrize("path", [f"/redirect/{MAX_REDIRECTS + 1}", "/redirect/loop"])
def test_one_redirect_more_than_the_bound_is_unreachable(server: LocalServer, tmp_path: Path, path: str) -> None:
    with pytest.raises(InputUnreachable) as refused:
        fetch(server.url(path), tmp_path / "in")
    assert refused.value.message == f"{FIELD}: more than 5 redirects (a loop?): give the final URL"
    assert refused.value.http_status == 422
    assert len(server.requests) == MAX_REDIRECTS + 1


@pytest.mark.parametrize("size", [1000, 1001])
def test_the_cap_said_by_content_length_refuses_before_reading(server: LocalServer, tmp_path: Path, size: int) -> None:
    path = tmp_path / "in"
    if size == 1000:
        assert fetch(server.url(f"/file/{size}"), path, max_bytes=1000).size_bytes == 1000
        return
    with pytest.raises(InputTooLarge) as refused:
        fetch(server.url(f"/file/{size}"), path, max_bytes=1000)
    assert refused.value.message == f"{FIELD}: the input is 1,001 bytes (its Content-Length); at most 1,000 are taken"
    assert (refused.value.code, refused.value.http_status) == ("input_too_large", 413)
    assert not path.exists()


@pytest.mark.parametrize("size", [100_000, 100_001])
def test_the_cap_without_content_length_refuses_while_streaming(server: LocalServer, tmp_path: Path, size: int) -> None:
    path = tmp_path / "in"
    if size == 100_000:
        assert fetch(server.url(f"/chunked/{size}"), path, max_bytes=100_000).size_bytes == size
        return
    with pytest.raises(InputTooLarge) as refused:
        fetch(server.url(f"/chunked/{size}"), path, max_bytes=100_000)
    assert refused.value.message == f"{FIELD}: the input is over 100,000 bytes (found while it arrived)"
    assert not path.exists()


@pytest.mark.parametrize("drip", ["/drip/1000", "/drip/1000?close=1"], ids=["kept alive", "Connection: close"])
def test_a_slow_drip_ends_at_the_total_deadline(server: LocalServer, tmp_path: Path, drip: str) -> None:
    path = tmp_path / "in"
    started = time.monotonic()
    with pytest.raises(InputUnreachable) as refused:
        fetch(server.url(drip), path, total=1.0)  # the whole drip takes 100 s
    assert time.monotonic() - started < 10
    assert refused.value.message == f"{FIELD}: the input did not arrive within 1 s"
    assert not path.exists()


def test_a_fetch_cut_from_another_thread_ends_at_once(server: LocalServer, tmp_path: Path) -> None:
    """An operation cancelled while its input drips in (fileapi.operations.executor cuts the fetch's Deadline)."""
    import threading

    from fileapi.net.connection import Deadline

    deadline = Deadline(60)
    threading.Timer(0.5, deadline.cut).start()
    started = time.monotonic()
    with pytest.raises(InputUnreachable):
        fetch_to_file(server.url("/drip/1000?close=1"), tmp_path / "in", max_bytes=10_000, connect_timeout=2.0,
                      total_timeout=60, field=FIELD, policy=LOCAL, deadline=deadline)  # fmt: skip
    assert time.monotonic() - started < 10  # the drip takes 100 s
    assert not (tmp_path / "in").exists()


def test_a_server_that_does_not_answer_ends_at_the_total_deadline(server: LocalServer, tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(InputUnreachable, match=r"did not arrive within 0\.5 s"):
        fetch(server.url("/silent/30"), tmp_path / "in", total=0.5)
    assert time.monotonic() - started < 10


def test_a_body_cut_short_is_unreachable(server: LocalServer, tmp_path: Path) -> None:
    with pytest.raises(InputUnreachable) as refused:
        fetch(server.url("/short/20000"), tmp_path / "in")
    assert refused.value.message == f"{FIELD}: the connection closed after 10,000 bytes, 10,000 short of the whole"


def test_an_error_status_is_unreachable(server: LocalServer, tmp_path: Path) -> None:
    with pytest.raises(InputUnreachable) as refused:
        fetch(server.url("/nothing-here"), tmp_path / "in")
    assert refused.value.message == f"{FIELD}: 127.0.0.1 answered 404 Not Found"


def test_a_closed_port_is_unreachable(server: LocalServer, tmp_path: Path) -> None:
    port = server.port
    server.close()
    with pytest.raises(InputUnreachable) as refused:
        fetch(f"http://127.0.0.1:{port}/file/1", tmp_path / "in")
    assert refused.value.message == f"{FIELD}: 127.0.0.1 could not be reached (connection refused)"


@pytest.mark.parametrize(
    ("location", "reason"),
    [
        ("http://169.254.169.254/latest/meta-data/", "the URL's host '169.254.169.254' is not a public address"),
        ("http://10.0.0.1/", "the URL's host '10.0.0.1' is not a public address"),
        ("http://0xa9fea9fe/", "the URL's host '169.254.169.254' is not a public address"),
        ("http://private.test/", "the URL's host 'private.test' resolves to 10.1.2.3, which is not a public address"),
        ("file:///etc/passwd", "the URL must be an absolute https:// or http:// URL, not 'file:///etc/passwd'"),
    ],
)
def test_a_redirect_to_a_private_address_is_refused(
    server: LocalServer, tmp_path: Path, location: str, reason: str
) -> None:
    policy = names({"files.test": "127.0.0.1", "private.test": "10.1.2.3"})
    with pytest.raises(InvalidInput) as refused:
        fetch(server.url(f"/redirect/to?location={location}", host="files.test"), tmp_path / "in", policy=policy)
    assert refused.value.message.startswith(f"{FIELD}: redirect 1 (from files.test) is refused: {reason}")
    assert len(server.requests) == 1  # nothing was asked of the redirect's target


@pytest.mark.parametrize(
    "url",
    [
        "https://169.254.169.254/latest/meta-data/",
        "https://[::ffff:127.0.0.1]/",
        "https://2130706433/",
        "https://0x7f000001/",
        "https://private.test/",
        "http://files.test/",
    ],
)
def test_ssrf_targets_are_refused_when_deployed_before_any_connection(tmp_path: Path, url: str) -> None:
    calls: list[str] = []
    policy = EgressPolicy(resolver=names({"private.test": "192.168.0.4", "files.test": "8.8.8.8"}, calls).resolver)
    with pytest.raises(InvalidInput, match=r"not a public address|must be an absolute https:// URL"):
        fetch(url, tmp_path / "in", policy=policy)
    assert not (tmp_path / "in").exists()


def test_the_local_server_itself_is_refused_when_deployed(server: LocalServer, tmp_path: Path) -> None:
    with pytest.raises(InvalidInput):
        fetch(server.url("/file/10"), tmp_path / "in", policy=DEPLOYED)
    assert server.requests == []


def test_the_connection_is_pinned_to_the_checked_address(server: LocalServer, tmp_path: Path) -> None:
    """A resolver that answers a private address after its first answer (DNS rebinding) is asked once."""
    calls: list[str] = []
    answers = iter(["127.0.0.1", "10.9.9.9", "10.9.9.9"])

    def rebinding(host: str, port: int) -> Sequence[str]:
        calls.append(host)
        return [next(answers)]

    fetched = fetch(server.url("/file/100", host="files.test"), tmp_path / "in", policy=EgressPolicy(True, rebinding))
    assert fetched.size_bytes == 100
    assert calls == ["files.test"]
    assert server.requests[0][2]["host"] == f"files.test:{server.port}"


def test_https_is_verified_against_the_host_name_over_the_pinned_address(tmp_path: Path) -> None:
    server_tls, client_tls = self_signed("files.test", tmp_path)
    server = LocalServer(tls=server_tls)
    try:
        mapping = {"files.test": "127.0.0.1", "other.test": "127.0.0.1"}
        policy = EgressPolicy(local=True, resolver=names(mapping).resolver, tls=client_tls)
        fetched = fetch(server.url("/file/5000", host="files.test", scheme="https"), tmp_path / "in", policy=policy)
        assert fetched.size_bytes == 5000
        assert server.requests[0][2]["host"] == f"files.test:{server.port}"
        with pytest.raises(InputUnreachable) as refused:
            fetch(server.url("/file/5000", host="other.test", scheme="https"), tmp_path / "in", policy=policy)
        assert refused.value.message.startswith(
            f"{FIELD}: other.test could not be reached (its TLS certificate was refused: Hostname mismatch"
        )
    finally:
        server.close()
