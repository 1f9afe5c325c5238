"""Bringing an input named by URL to a file: a GET streamed to disk, size-capped, under a connect timeout and a
total deadline, over a connection pinned to a checked address, every redirect checked again."""

from __future__ import annotations

import errno
import http.client
from dataclasses import dataclass, replace
from pathlib import Path
from typing import BinaryIO
from urllib.parse import urljoin

from fileapi.errors import InputTooLarge, InputUnreachable, InvalidInput
from fileapi.net.addresses import DEPLOYED, EgressPolicy, Target, check_url
from fileapi.net.connection import CHUNK_BYTES, USER_AGENT, Deadline, failure_reason, session

MAX_REDIRECTS = 5  # as many as a browser-like client needs for a CDN hop or two; a loop ends here
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


@dataclass(frozen=True)
class Fetched:
    """What `fetch_to_file` wrote.

    :param url: the URL the file came from (after redirects).
    :param size_bytes: the bytes written.
    :param content_type: the answer's Content-Type, if it gave one.
    :param redirects: how many redirects were followed (0..MAX_REDIRECTS).
    """

    url: str
    size_bytes: int
    content_type: str | None
    redirects: int


def fetch_to_file(
    url: str,
    path: Path,
    *,
    max_bytes: int,
    connect_timeout: float,
    total_timeout: float,
    field: str,
    policy: EgressPolicy = DEPLOYED,
    deadline: Deadline | None = None,
) -> Fetched:
    """GET `url` into the file `path` (made or replaced; removed again when the fetch fails).

    :param max_bytes: the largest input taken, in bytes (>= 0).
    :param connect_timeout: seconds to open each connection (TLS handshake included).
    :param total_timeout: seconds for the whole fetch, redirects included.
    :param field: the request's name for the URL (`inputs[1].url`), first in every message.
    :param policy: where connections may go (DEPLOYED: public https only).
    :param deadline: the caller's Deadline of `total_timeout`, to `cut` the fetch short from another thread.
    :raises InvalidInput: the URL, or a redirect's, is refused (`check_url`): nothing of it was fetched.
    :raises InputTooLarge: the input is over `max_bytes` (said by Content-Length, or found while streaming).
    :raises InputUnreachable: no connection, an answer other than 2xx, more than MAX_REDIRECTS redirects, a body
        cut short, or not all of it within `total_timeout`.
    """
    deadline = deadline or Deadline(total_timeout)
    target = check_url(url, field=field, policy=policy)
    try:
        with path.open("wb") as out:
            for redirects in range(MAX_REDIRECTS + 1):
                got = _get(
                    target, out, max_bytes=max_bytes, connect_timeout=connect_timeout, deadline=deadline, policy=policy
                )
                if isinstance(got, Fetched):
                    return replace(got, redirects=redirects)
                target = _redirected(target, got, field=field, policy=policy, number=redirects + 1)
            raise InputUnreachable(f"more than {MAX_REDIRECTS} redirects (a loop?): give the final URL")
    except (InputUnreachable, InputTooLarge) as exc:
        path.unlink(missing_ok=True)
        raise type(exc)(f"{field}: {exc.message}") from None
    except BaseException:
        path.unlink(missing_ok=True)
        raise


def _redirected(target: Target, location: str, *, field: str, policy: EgressPolicy, number: int) -> Target:
    """The checked target of a redirect's Location (relative to the URL that gave it)."""
    try:
        return check_url(urljoin(target.url.text, location), field=field, policy=policy)
    except InvalidInput as exc:
        reason = exc.message.removeprefix(f"{field}: ")
        raise InvalidInput(f"{field}: redirect {number} (from {target.url.host}) is refused: {reason}") from None


def _get(
    target: Target, out: BinaryIO, *, max_bytes: int, connect_timeout: float, deadline: Deadline, policy: EgressPolicy
) -> Fetched | str:
    """One GET: the file written to `out` (a Fetched whose redirects the caller fills in), or a redirect's Location.

    :raises InputUnreachable, InputTooLarge: as `fetch_to_file`, its field left for the caller to add.
    """
    host = target.url.host
    if deadline.remaining() <= 0:
        raise InputUnreachable(f"the input did not arrive within {deadline.seconds:g} s")
    try:
        with session(target, policy=policy, connect_timeout=connect_timeout, deadline=deadline) as connection:
            connection.request(
                "GET", target.url.target, headers={"User-Agent": USER_AGENT, "Accept-Encoding": "identity"}
            )
            response = connection.getresponse()
            if response.status in REDIRECT_STATUSES:
                location = response.getheader("Location")
                if not location:
                    raise InputUnreachable(f"{host} answered {response.status} without a Location to go to")
                return location
            if not 200 <= response.status < 300:
                raise InputUnreachable(f"{host} answered {response.status} {response.reason}".rstrip())
            if response.length is not None and response.length > max_bytes:
                raise InputTooLarge(
                    f"the input is {response.length:,} bytes (its Content-Length); at most {max_bytes:,} are taken"
                )
            size = _stream(response, out, max_bytes=max_bytes)
            return Fetched(target.url.text, size, response.getheader("Content-Type"), 0)
    except OSError as exc:
        if deadline.passed():
            raise InputUnreachable(f"the input did not arrive within {deadline.seconds:g} s") from None
        if isinstance(exc, _CutShort):
            raise InputUnreachable(str(exc)) from None
        raise InputUnreachable(f"{host} could not be reached ({failure_reason(exc)})") from None


class _CutShort(ConnectionError):
    """The connection closed before Content-Length bytes came."""


def _stream(response: http.client.HTTPResponse, out: BinaryIO, *, max_bytes: int) -> int:
    """Write the body to `out`; its size in bytes. read1 takes what one receive brings (a slow drip is seen by
    the deadline, not hidden in a buffered read of CHUNK_BYTES).

    :raises InputTooLarge: over `max_bytes`, or the disk is full (a failure to write is not the network's).
    """
    size = 0
    while chunk := response.read1(CHUNK_BYTES):
        size += len(chunk)
        if size > max_bytes:
            raise InputTooLarge(f"the input is over {max_bytes:,} bytes (found while it arrived)")
        try:
            out.write(chunk)
        except OSError as exc:
            if exc.errno not in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
                raise RuntimeError("the input could not be written") from exc  # not an OSError: not the network's
            raise InputTooLarge(f"the input does not fit on the operation's disk ({size:,} bytes came)") from None
    if response.length:  # the connection closed before Content-Length bytes came
        raise _CutShort(f"the connection closed after {size:,} bytes, {response.length:,} short of the whole")
    return size
