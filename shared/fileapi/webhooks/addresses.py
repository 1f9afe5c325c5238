"""Where a webhook may be sent: public HTTPS only, checked after DNS resolution, connected to as checked.

A URL's host is resolved, and every address it resolves to must be public: not private, loopback,
link-local, multicast, reserved, unspecified or shared (carrier-grade NAT), in IPv4 or IPv6, an IPv4
address inside IPv6 (mapped, 6to4, Teredo) judged as the IPv4 address it carries. The delivery then
connects to the address that was checked (TLS still verifies the certificate against the host name), so
a DNS answer that changes between the check and the connection (rebinding) cannot redirect it.
Running locally (FILEAPI_WEBHOOKS_ALLOW_LOOPBACK), http:// and https:// to a loopback address are allowed too.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
from dataclasses import dataclass
from urllib.parse import urlsplit

from fileapi.errors import InvalidInput

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


@dataclass(frozen=True)
class Target:
    """A checked URL: its scheme, host, port, path (with query) and the address to connect to."""

    scheme: str
    host: str
    port: int
    path: str
    address: str


def carried_ipv4(address: IPAddress) -> IPAddress:
    """The IPv4 address an IPv6 address carries (mapped, 6to4, Teredo's client), else the address itself."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        if address.sixtofour is not None:
            return address.sixtofour
        if address.teredo is not None:
            return address.teredo[1]
    return address


def is_public(address: IPAddress) -> bool:
    """Whether `address` (and any IPv4 address it carries) is a public unicast address; an IPv4-mapped
    address is judged as its IPv4 address alone (the mapped block itself is not routed)."""
    mapped = isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None
    for candidate in {carried_ipv4(address)} if mapped else {address, carried_ipv4(address)}:
        if (
            not candidate.is_global
            or candidate.is_multicast
            or candidate.is_reserved
            or candidate.is_loopback
            or candidate.is_link_local
            or candidate.is_private
            or candidate.is_unspecified
        ):
            return False
    return True


def check_url(url: str, *, allow_loopback: bool = False) -> Target:
    """Check `url` and resolve its host; the target to connect to.

    :param allow_loopback: also allow http:// and https:// to loopback addresses (local use only).
    :raises InvalidInput: not an absolute https:// URL, credentials in it, a host that does not resolve, or
        one that resolves to an address that is not public (the message names it).
    """
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise InvalidInput(f"the webhook URL must be an absolute https:// URL, not {url[:100]!r}")
    if parts.username or parts.password:
        raise InvalidInput("the webhook URL must not carry a user name or password")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise InvalidInput("the webhook URL's port is not a number from 1 to 65535") from None
    host = parts.hostname
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise InvalidInput(f"the webhook URL's host {host!r} does not resolve") from None
    addresses = [ipaddress.ip_address(str(entry[4][0]).split("%")[0]) for entry in found]
    if not addresses:
        raise InvalidInput(f"the webhook URL's host {host!r} does not resolve")
    loopback = allow_loopback and all(carried_ipv4(address).is_loopback for address in addresses)
    if not loopback:
        if parts.scheme != "https":
            raise InvalidInput("the webhook URL must use https://")
        refused = [address for address in addresses if not is_public(address)]
        if refused:
            raise InvalidInput(
                f"the webhook URL's host {host!r} resolves to {refused[0]}, which is not a public address: "
                "webhooks go to public HTTPS endpoints only"
            )
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(scheme=parts.scheme, host=host, port=port, path=path, address=str(addresses[0]))


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """HTTPS to a fixed address; the certificate is verified against the host name (SNI as well)."""

    def __init__(self, target: Target, *, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout, context=ssl.create_default_context())
        self.address = target.address

    def connect(self) -> None:
        sock = socket.create_connection((self.address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """Plain HTTP to a fixed (loopback) address."""

    def __init__(self, target: Target, *, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout)
        self.address = target.address

    def connect(self) -> None:
        self.sock = socket.create_connection((self.address, self.port), self.timeout)


def post(target: Target, body: bytes, headers: dict[str, str], *, timeout: float) -> int:
    """POST `body` to the checked target, connecting to its checked address; the answer's status (redirects
    are not followed: a 3xx is the answer).

    :raises OSError: the connection failed or timed out.
    """
    connection: http.client.HTTPConnection = (
        _PinnedHTTPSConnection(target, timeout=timeout)
        if target.scheme == "https"
        else _PinnedHTTPConnection(target, timeout=timeout)
    )
    try:
        connection.request("POST", target.path, body=body, headers={**headers, "Content-Type": "application/json"})
        response = connection.getresponse()
        response.read(64 * 1024)  # the receiver's answer is not used; a little is read to end the exchange
        return response.status
    except http.client.HTTPException as exc:
        raise OSError(f"bad answer ({type(exc).__name__})") from None
    finally:
        connection.close()
