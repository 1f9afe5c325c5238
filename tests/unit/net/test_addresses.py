"""The one address check: public addresses only, after resolution (an injected resolver here), loopback locally."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

import pytest

from fileapi.errors import InvalidInput
from fileapi.net.addresses import DEPLOYED, EgressPolicy, check_url, is_public

LOCAL = EgressPolicy(local=True)
# An IPv4-mapped address's text differs by Python version (::ffff:7f00:1, or ::ffff:127.0.0.1 from 3.13).
MAPPED_LOOPBACK = ipaddress.ip_address("::ffff:127.0.0.1")
MAPPED_PRIVATE = ipaddress.ip_address("::ffff:10.1.2.3")


def resolving(*addresses: str) -> EgressPolicy:
    """A deployed policy whose resolver answers `addresses` for every name (none: the name does not resolve)."""

    def resolver(host: str, port: int) -> Sequence[str]:
        if not addresses:
            raise OSError("no such name")
        return addresses

    return EgressPolicy(resolver=resolver)


@pytest.mark.parametrize(
    "address",
    [
        "10.0.0.1",
        "172.16.5.4",
        "192.168.1.1",
        "127.0.0.1",
        "169.254.169.254",
        "100.64.0.1",
        "0.0.0.0",
        "224.0.0.1",
        "240.0.0.1",
        "255.255.255.255",
        "192.0.2.1",
        "::",
        "::1",
        "fe80::1",
        "fc00::1",
        "ff02::1",
        "::ffff:127.0.0.1",
        "::ffff:169.254.169.254",
        "::ffff:10.0.0.1",
        "2002:a9fe:a9fe::1",
        "64:ff9b::a9fe:a9fe",
        "64:ff9b::7f00:1",
        "64:ff9b::a00:1",
        "64:ff9b:1::a00:1",
        "2001:db8::1",
    ],
)
def test_addresses_that_are_not_public_are_refused(address: str) -> None:
    assert not is_public(ipaddress.ip_address(address))


@pytest.mark.parametrize(
    "address", ["93.184.215.14", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808", "8.8.8.8"]
)
def test_public_addresses_are_allowed(address: str) -> None:
    assert is_public(ipaddress.ip_address(address))


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("https://169.254.169.254/latest/meta-data/", "url: the URL's host '169.254.169.254' is not a public address"),
        (
            "https://[::ffff:127.0.0.1]/",
            f"url: the URL's host '{ipaddress.ip_address('::ffff:127.0.0.1')}' is not a public address",
        ),
        (
            "https://[::ffff:10.1.2.3]/",
            f"url: the URL's host '{ipaddress.ip_address('::ffff:10.1.2.3')}' is not a public address",
        ),
        ("https://[64:ff9b::a9fe:a9fe]/", "url: the URL's host '64:ff9b::a9fe:a9fe' is not a public address"),
        ("https://2130706433/", "url: the URL's host '127.0.0.1' is not a public address"),
        ("https://0x7f000001/", "url: the URL's host '127.0.0.1' is not a public address"),
        ("https://0xa9fea9fe/", "url: the URL's host '169.254.169.254' is not a public address"),
        ("https://127.1/", "url: the URL's host '127.0.0.1' is not a public address"),
        ("https://[::1]:8443/", "url: the URL's host '::1' is not a public address"),
        ("http://8.8.8.8/", "url: the URL must be an absolute https:// URL"),
    ],
)
def test_ssrf_targets_are_refused_when_deployed(url: str, message: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        check_url(url, field="url", policy=resolving("8.8.8.8"))
    assert refused.value.message.startswith(message)


def test_a_name_resolving_to_a_private_address_is_refused() -> None:
    with pytest.raises(InvalidInput) as refused:
        check_url("https://files.example.com/a.pdf", field="inputs[0].url", policy=resolving("10.0.0.7"))
    assert refused.value.message == (
        "inputs[0].url: the URL's host 'files.example.com' resolves to 10.0.0.7, which is not a public address: "
        "only public addresses are reached"
    )


def test_one_private_address_among_public_ones_is_enough_to_refuse() -> None:
    with pytest.raises(InvalidInput, match="resolves to fd00::1"):
        check_url("https://files.example.com/", field="url", policy=resolving("93.184.215.14", "fd00::1"))


def test_a_name_that_does_not_resolve_is_refused() -> None:
    with pytest.raises(InvalidInput, match=r"url: the URL's host 'nowhere\.example' does not resolve"):
        check_url("https://nowhere.example/", field="url", policy=resolving())


def test_a_public_name_gives_the_checked_addresses_to_connect_to() -> None:
    target = check_url(
        "https://files.example.com:8443/a?b=1", field="url", policy=resolving("93.184.215.14", "2606:4700:4700::1111")
    )
    assert target.addresses == ("93.184.215.14", "2606:4700:4700::1111")
    assert (target.url.host, target.url.port, target.url.target) == ("files.example.com", 8443, "/a?b=1")


def test_an_ip_literal_is_not_resolved() -> None:
    target = check_url("https://8.8.8.8/", field="url", policy=resolving())
    assert target.addresses == ("8.8.8.8",)


def test_loopback_and_http_are_allowed_locally_only() -> None:
    target = check_url("http://127.0.0.1:8080/hooks?x=1", field="url", policy=LOCAL)
    assert (target.url.scheme, target.addresses, target.url.port, target.url.target) == (
        "http",
        ("127.0.0.1",),
        8080,
        "/hooks?x=1",
    )
    assert check_url("http://[::1]:8080/", field="url", policy=LOCAL).addresses == ("::1",)
    with pytest.raises(InvalidInput, match="not a public address"):
        check_url("http://10.0.0.1/hooks", field="url", policy=LOCAL)
    with pytest.raises(InvalidInput, match="not a public address"):
        check_url("https://127.0.0.1/hooks", field="url", policy=DEPLOYED)


def test_the_system_resolver_is_used_by_default() -> None:
    with pytest.raises(InvalidInput, match="url: the URL's host 'localhost' resolves to"):
        check_url("https://localhost/", field="url")
