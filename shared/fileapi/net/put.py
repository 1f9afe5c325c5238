"""Sending a result to the customer's storage: a file streamed as the body of a presigned PUT (S3, Google Cloud
Storage and Azure SAS URLs all take one), under the same address rules as every URL, retried with backoff on a
5xx, 408, 429 or a failed connection, and reported per file (never raised) when it still fails."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from fileapi.errors import InvalidInput, OutputFailed
from fileapi.net.addresses import DEPLOYED, EgressPolicy, check_target
from fileapi.net.connection import exchange, failure_reason
from fileapi.net.urls import ParsedUrl, parse_url

PUT_ATTEMPTS = 4  # with BACKOFF_SECONDS doubled between them: waits of 1, 2 and 4 s, 7 s in all
BACKOFF_SECONDS = 1.0
MAX_HEADERS = 20
MAX_HEADER_CHARS = 4_096  # a header's name and value together; S3 takes 8 KiB of headers in all
# Hop-by-hop headers (RFC 9110 7.6.1) and those the PUT sets itself: a customer's header may not replace them.
RESERVED_HEADERS = frozenset(
    {
        "connection",
        "content-length",
        "expect",
        "host",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+\Z")  # RFC 9110's token: a header's name
_VALUE = re.compile(r"[\t\x20-\x7e]*\Z")  # visible ASCII, space and tab: no CR, LF, NUL or other control
RETRIED_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
_ERROR_CODE = re.compile(rb"<Code>([A-Za-z0-9.]{1,64})</Code>")  # S3, GCS and Azure name their refusals so


@dataclass(frozen=True)
class PutResult:
    """How the PUT of one file went.

    :param field: the request's name for the URL (`output.put[0].url`).
    :param status: the last answer's HTTP status (None: no answer).
    :param attempts: the attempts made (1..the attempts allowed).
    :param error: None when the storage answered 2xx; else OutputFailed, its message naming the field and why.
    """

    field: str
    status: int | None
    attempts: int
    error: OutputFailed | None

    @property
    def ok(self) -> bool:
        return self.error is None


def check_headers(headers: Mapping[str, str], *, field: str) -> dict[str, str]:
    """The headers of a PUT as given, once checked.

    :param field: the request's name for them (`output.put[0].headers`), first in every message.
    :raises InvalidInput: more than MAX_HEADERS, a name that is not an HTTP token or is hop-by-hop (or set by the
        PUT itself: Host, Content-Length, Expect), a value holding CR, LF or another control character or beyond
        ASCII, or a header over MAX_HEADER_CHARS.
    """
    if len(headers) > MAX_HEADERS:
        raise InvalidInput(f"{field}: at most {MAX_HEADERS} headers are taken, not {len(headers)}")
    for name, value in headers.items():
        if not _TOKEN.match(name):
            raise InvalidInput(f"{field}: {name[:40]!r} is not a header name (letters, digits and !#$%&'*+-.^_`|~)")
        if name.lower() in RESERVED_HEADERS:
            raise InvalidInput(f"{field}: the header {name!r} is set by the PUT itself (or is hop-by-hop): remove it")
        if not _VALUE.match(value):
            raise InvalidInput(
                f"{field}: the value of {name!r} holds a control character (CR, LF...) or a character beyond ASCII"
            )
        if len(name) + len(value) > MAX_HEADER_CHARS:
            raise InvalidInput(f"{field}: the header {name!r} is over {MAX_HEADER_CHARS:,} characters")
    return dict(headers)


def put_file(
    url: str,
    path: Path,
    *,
    field: str,
    headers: Mapping[str, str] | None = None,
    connect_timeout: float = 10.0,
    total_timeout: float = 300.0,
    attempts: int = PUT_ATTEMPTS,
    backoff_seconds: float = BACKOFF_SECONDS,
    policy: EgressPolicy = DEPLOYED,
    sleep: Callable[[float], None] = time.sleep,
) -> PutResult:
    """PUT the file `path` to `url` (a presigned URL), with Content-Length and `headers`.

    :param field: the request's name for the URL (`output.put[0].url`); the headers' is its sibling
        (`output.put[0].headers`).
    :param connect_timeout: seconds to open each connection (TLS handshake included).
    :param total_timeout: seconds for each attempt, the whole file sent and the answer read.
    :param attempts: tries at most (>= 1); after a failed one the wait is `backoff_seconds`, doubled after each
        (the defaults: 4 attempts, waits of 1, 2 and 4 s).
    :param policy: where connections may go (DEPLOYED: public https only).
    :returns: the result; a failure (address refused, 4xx, 3xx, or every attempt failed) is in `error`.
    :raises InvalidInput: the URL or the headers are refused (`parse_url`, `check_headers`): check them when the
        request comes, before any work.
    :raises ValueError: `attempts` < 1.
    """
    if attempts < 1:
        raise ValueError(f"attempts must be >= 1, not {attempts}")
    parsed = parse_url(url, field=field, allow_http=policy.local)
    sent = check_headers(headers or {}, field=field.removesuffix("url") + "headers")
    size = path.stat().st_size
    for attempt in range(1, attempts + 1):
        status, reason, retried = _attempt(
            parsed,
            path,
            size=size,
            headers=sent,
            field=field,
            policy=policy,
            connect_timeout=connect_timeout,
            total_timeout=total_timeout,
        )
        if reason is None:
            return PutResult(field, status, attempt, None)
        if not retried or attempt == attempts:
            tries = f" after {attempt} attempts" if attempt > 1 else ""
            return PutResult(field, status, attempt, OutputFailed(f"{field}: {reason}{tries}"))
        sleep(backoff_seconds * 2 ** (attempt - 1))
    raise AssertionError("unreachable: the last attempt returns a result")


def _attempt(
    url: ParsedUrl,
    path: Path,
    *,
    size: int,
    headers: dict[str, str],
    field: str,
    policy: EgressPolicy,
    connect_timeout: float,
    total_timeout: float,
) -> tuple[int | None, str | None, bool]:
    """One PUT: the status (None: no answer), why it failed (None: it did not) and whether to try again."""
    try:
        target = check_target(url, field=field, policy=policy)  # resolved again each attempt, checked each time
    except InvalidInput as exc:
        return None, exc.message.removeprefix(f"{field}: "), False
    with path.open("rb") as body:  # outside the try: a file that cannot be read is not the network's failure
        try:
            answer = exchange(
                target,
                "PUT",
                body=body,
                headers={**headers, "Content-Length": str(size)},
                policy=policy,
                connect_timeout=connect_timeout,
                total_timeout=total_timeout,
            )
        except OSError as exc:
            return None, f"the storage at {url.host} could not be reached ({failure_reason(exc)})", True
    if 200 <= answer.status < 300:
        return answer.status, None, False
    code = _ERROR_CODE.search(answer.head)
    named = f" ({code.group(1).decode()})" if code else ""
    refused = f"the storage at {url.host} answered {answer.status}{named}"
    if 300 <= answer.status < 400:
        refused += ": a presigned PUT is not redirected"
    return answer.status, refused, answer.status in RETRIED_STATUSES
