"""The one parser of the URLs the service stores or calls (webhooks, URL inputs, PUT outputs).

A URL is refused, with a 400 naming the field, when it holds a control character, a space, a backslash or a
character that is not ASCII; when it is longer than MAX_URL_CHARS; when its scheme is not https (http too when
running locally); when it carries a user name or password; or when its host is not a DNS name or an IP address.
A host written as an IPv4 number in another form (`2130706433`, `0x7f000001`, `0177.0.0.1`, `127.1`) is read as
browsers and the system resolver read it (the WHATWG URL standard's IPv4 parser), so the address check judges the
address it means.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from fileapi.errors import InvalidInput

# 8 KiB is the request line nginx and S3 accept (a presigned URL with a session token is about 2,000 characters).
MAX_URL_CHARS = 8_192
DEFAULT_PORTS = {"https": 443, "http": 80}
_LABEL = re.compile(r"(?!-)[a-z0-9_-]{1,63}(?<!-)\Z")
_HEX = re.compile(r"0[xX][0-9a-fA-F]*\Z")
_OCTAL = re.compile(r"0[0-7]+\Z")
_DECIMAL = re.compile(r"(0|[1-9][0-9]*)\Z")
_MAX_NAME_CHARS = 253  # a DNS name's longest text form (RFC 1035), without the trailing dot


@dataclass(frozen=True)
class ParsedUrl:
    """A URL that passed `parse_url`.

    :param scheme: "https", or "http" (only when allowed).
    :param host: a lower-case DNS name (no trailing dot), or an IP address in its canonical text (no brackets).
    :param port: 1..65535, the scheme's default when the URL gives none.
    :param target: the path and query, as the request line carries them ("/" at least; no fragment).
    :param text: the URL as given.
    """

    scheme: str
    host: str
    port: int
    target: str
    text: str

    @property
    def address(self) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
        """The host when it is an IP address, else None (a name, to resolve)."""
        try:
            return ipaddress.ip_address(self.host)
        except ValueError:
            return None


def parse_url(url: str, *, field: str, allow_http: bool = False) -> ParsedUrl:
    """Parse a URL given in `field` of a request.

    :param field: the request's name for it, put first in every message (`url`, `inputs[1].url`).
    :param allow_http: accept http:// as well as https:// (local use only).
    :raises InvalidInput: see the module's docstring; the message says what to change.
    """
    if len(url) > MAX_URL_CHARS:
        raise InvalidInput(f"{field}: the URL is {len(url):,} characters long; at most {MAX_URL_CHARS:,} are taken")
    _check_characters(url, field=field)
    try:
        parts = urlsplit(url)
    except ValueError:  # brackets that do not hold an IPv6 address
        raise InvalidInput(f"{field}: the URL's host in [...] is not an IPv6 address") from None
    schemes = ("https", "http") if allow_http else ("https",)
    if parts.scheme.lower() not in schemes:
        wanted = " or ".join(f"{scheme}://" for scheme in schemes)
        raise InvalidInput(f"{field}: the URL must be an absolute {wanted} URL, not {url[:60]!r}")
    if not parts.netloc:
        raise InvalidInput(f"{field}: the URL has no host (write it as https://host/path)")
    if "@" in parts.netloc:
        raise InvalidInput(f"{field}: the URL must not carry a user name or password (nothing before '@')")
    try:
        port = parts.port
    except ValueError:
        raise InvalidInput(f"{field}: the URL's port is not a number from 1 to 65535") from None
    if port == 0:
        raise InvalidInput(f"{field}: the URL's port is not a number from 1 to 65535")
    scheme = parts.scheme.lower()
    host = _host(parts.netloc, parts.hostname or "", field=field)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    if not target.startswith("/"):
        raise InvalidInput(f"{field}: the URL's path must start with '/'")
    return ParsedUrl(scheme=scheme, host=host, port=port or DEFAULT_PORTS[scheme], target=target, text=url)


def _check_characters(url: str, *, field: str) -> None:
    """Refuse what urlsplit would drop or misread: C0 and C1 controls (urlsplit strips CR, LF and tab), DEL,
    spaces, backslashes (read as '/' by browsers) and characters beyond ASCII."""
    for position, char in enumerate(url):
        code = ord(char)
        if code < 0x20 or 0x7F <= code <= 0x9F:
            raise InvalidInput(
                f"{field}: the URL holds a control character (U+{code:04X} at position {position}): remove it"
            )
        if char == " ":
            raise InvalidInput(f"{field}: the URL holds a space (position {position}): percent-encode it as %20")
        if char == "\\":
            raise InvalidInput(f"{field}: the URL holds a backslash (position {position}): use '/' or %5C")
        if code > 0x7F:
            raise InvalidInput(
                f"{field}: the URL holds a character that is not ASCII (position {position}): percent-encode it, "
                "and write an international host name in its xn-- form"
            )


def _host(netloc: str, hostname: str, *, field: str) -> str:
    """The host's canonical text: an IP address's, or the lower-case name's without its trailing dot."""
    if not hostname:
        raise InvalidInput(f"{field}: the URL has no host (write it as https://host/path)")
    if "[" in netloc:
        try:
            address = ipaddress.IPv6Address(hostname)
        except ValueError:
            raise InvalidInput(f"{field}: the URL's host [{hostname}] is not an IPv6 address") from None
        if address.scope_id:
            raise InvalidInput(f"{field}: the URL's IPv6 host must not carry a zone (%...)")
        return str(address)
    name = hostname[:-1] if hostname.endswith(".") else hostname
    labels = name.split(".")
    if _ends_in_a_number(labels):
        return str(_whatwg_ipv4(labels, field=field))
    if len(name) > _MAX_NAME_CHARS or not all(_LABEL.match(label) for label in labels):
        raise InvalidInput(
            f"{field}: the URL's host {hostname[:60]!r} is not a DNS name (letters, digits and '-' in labels of "
            "1 to 63 characters, separated by '.')"
        )
    return name


def _ends_in_a_number(labels: list[str]) -> bool:
    """WHATWG's "ends in a number": the last label is decimal digits or 0x hexadecimal."""
    last = labels[-1]
    return bool(re.fullmatch(r"[0-9]+", last) or _HEX.match(last))


def _whatwg_ipv4(labels: list[str], *, field: str) -> ipaddress.IPv4Address:
    """WHATWG's IPv4 parser: 1 to 4 parts, each decimal, 0x hexadecimal or 0-led octal; the last part fills the
    bytes the others leave (`127.1` is 127.0.0.1; `2130706433` is 127.0.0.1)."""
    refused = InvalidInput(f"{field}: the URL's host {'.'.join(labels)[:60]!r} is not an IPv4 address")
    if len(labels) > 4:
        raise refused
    numbers = []
    for label in labels:
        if _HEX.match(label):
            numbers.append(int(label[2:] or "0", 16))
        elif _OCTAL.match(label):
            numbers.append(int(label, 8))
        elif _DECIMAL.match(label):
            numbers.append(int(label, 10))
        else:
            raise refused
    *leading, last = numbers
    if any(number > 255 for number in leading) or last >= 256 ** (5 - len(numbers)):
        raise refused
    value = last
    for index, number in enumerate(leading):
        value += number * 256 ** (3 - index)
    return ipaddress.IPv4Address(value)
