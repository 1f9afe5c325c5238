"""The one address check: a URL's host is resolved once, and every address it resolves to must be public.

Public: not private, loopback, link-local (169.254.169.254 included), multicast, reserved, unspecified or shared
(carrier-grade NAT), in IPv4 or IPv6. An IPv6 address that carries an IPv4 address (mapped `::ffff:a.b.c.d`,
NAT64 `64:ff9b::/96`, 6to4, Teredo) is judged by the IPv4 address it carries too. The connection is then made to a
checked address (`Target.addresses`), never to a second lookup's answer, so DNS rebinding cannot redirect it.
Running locally (EgressPolicy.local: FILEAPI_URLS_ALLOW_LOOPBACK), loopback addresses and http:// are allowed.
"""

from __future__ import annotations

import ipaddress
import socket
import ssl
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache

from fileapi.errors import InvalidInput
from fileapi.net.urls import ParsedUrl, parse_url

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
# host, port -> the addresses it resolves to, as text (getaddrinfo's order); raises OSError when it does not resolve
Resolver = Callable[[str, int], Sequence[str]]
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")  # RFC 6052's well-known prefix: the last 32 bits are the IPv4 address


def resolve_with_system(host: str, port: int) -> list[str]:
    """The addresses `host` resolves to with the system's resolver, in its order, without repeats or zones.

    :raises OSError: the name does not resolve.
    """
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except UnicodeError:
        raise OSError(f"{host!r} is not a name the resolver takes") from None
    return list(dict.fromkeys(str(entry[4][0]).split("%")[0] for entry in found))


@dataclass(frozen=True)
class EgressPolicy:
    """Where the service may connect.

    :param local: allow loopback addresses and http:// (FILEAPI_URLS_ALLOW_LOOPBACK; never deployed).
    :param resolver: resolves a host name (injected in tests).
    :param tls: the TLS context for https:// (None: the system's trust store, hostname verification on).
    """

    local: bool = False
    resolver: Resolver = resolve_with_system
    tls: ssl.SSLContext | None = field(default=None, compare=False)

    def tls_context(self) -> ssl.SSLContext:
        return self.tls or _system_tls()


@cache
def _system_tls() -> ssl.SSLContext:
    """The system's trust store with hostname verification, loaded once (a few ms) and shared: an SSLContext
    may serve many connections and threads."""
    return ssl.create_default_context()


DEPLOYED = EgressPolicy()


@dataclass(frozen=True)
class Target:
    """A parsed URL with the checked addresses to connect to, in order (at least one)."""

    url: ParsedUrl
    addresses: tuple[str, ...]


def carried_ipv4(address: IPAddress) -> IPAddress:
    """The IPv4 address an IPv6 address carries (mapped, NAT64, 6to4, Teredo's client), else the address itself."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        if address in NAT64:
            return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if address.sixtofour is not None:
            return address.sixtofour
        if address.teredo is not None:
            return address.teredo[1]
    return address


def is_public(address: IPAddress) -> bool:
    """Whether `address` (and any IPv4 address it carries) is a public unicast address; a mapped or NAT64
    address is judged as its IPv4 address alone (those blocks themselves are not routed as such)."""
    carried = carried_ipv4(address)
    translated = isinstance(address, ipaddress.IPv6Address) and (address.ipv4_mapped is not None or address in NAT64)
    for candidate in {carried} if translated else {address, carried}:
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


def is_allowed(address: IPAddress, policy: EgressPolicy) -> bool:
    """Public, or loopback when the policy is local."""
    return is_public(address) or (policy.local and carried_ipv4(address).is_loopback)


def check_url(url: str, *, field: str, policy: EgressPolicy = DEPLOYED) -> Target:
    """Parse `url` (`parse_url`), resolve its host and check every address: the target to connect to.

    :param field: the request's name for the URL, first in every message.
    :raises InvalidInput: the URL is refused by `parse_url`, its host does not resolve, or it resolves to an
        address that is not allowed (the message names it).
    """
    return check_target(parse_url(url, field=field, allow_http=policy.local), field=field, policy=policy)


def check_target(url: ParsedUrl, *, field: str, policy: EgressPolicy = DEPLOYED) -> Target:
    """Resolve a parsed URL's host (an IP address is its own answer) and check every address it gives.

    :raises InvalidInput: as `check_url`, but for the parsing.
    """
    literal = url.address
    if literal is not None:
        addresses = [literal]
    else:
        try:
            addresses = [ipaddress.ip_address(text) for text in policy.resolver(url.host, url.port)]
        except (OSError, ValueError):
            addresses = []
        if not addresses:
            raise InvalidInput(f"{field}: the URL's host {url.host!r} does not resolve")
    refused = [address for address in addresses if not is_allowed(address, policy)]
    if refused:
        named = "is" if literal is not None else f"resolves to {refused[0]}, which is"
        raise InvalidInput(
            f"{field}: the URL's host {url.host!r} {named} not a public address: only public addresses are reached"
        )
    return Target(url=url, addresses=tuple(str(address) for address in addresses))
