"""The one URL parser: what it refuses (naming the field), and what it reads hosts as."""

from __future__ import annotations

import ipaddress

import pytest

from fileapi.errors import InvalidInput
from fileapi.net.urls import MAX_URL_CHARS, parse_url


def refusal(url: str, *, field: str = "url", allow_http: bool = False) -> str:
    with pytest.raises(InvalidInput) as refused:
        parse_url(url, field=field, allow_http=allow_http)
    return refused.value.message


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (
            "https://example.com/hooks\r\nX-Injected: 1",
            "url: the URL holds a control character (U+000D at position 25)",
        ),
        ("https://example.com/a\nb", "url: the URL holds a control character (U+000A"),
        ("https://example.com/\tb", "url: the URL holds a control character (U+0009"),
        ("https://example.com/\x00", "url: the URL holds a control character (U+0000"),
        ("https://example.com/\x7f", "url: the URL holds a control character (U+007F"),
        ("https://example.com/\x85", "url: the URL holds a control character (U+0085"),
        ("https://example.com/a b", "url: the URL holds a space (position 21): percent-encode it as %20"),
        ("https://example.com\\@evil.test/", "url: the URL holds a backslash"),
        ("https://exämple.com/", "url: the URL holds a character that is not ASCII (position 10)"),
        ("https://user:pw@example.com/", "url: the URL must not carry a user name or password"),
        ("https://user@example.com/", "url: the URL must not carry a user name or password"),
        ("https://@example.com/", "url: the URL must not carry a user name or password"),
        ("http://example.com/", "url: the URL must be an absolute https:// URL, not 'http://example.com/'"),
        ("ftp://example.com/x", "url: the URL must be an absolute https:// URL"),
        ("file:///etc/passwd", "url: the URL must be an absolute https:// URL"),
        ("gopher://example.com/", "url: the URL must be an absolute https:// URL"),
        ("//example.com/", "url: the URL must be an absolute https:// URL"),
        ("https:///path", "url: the URL has no host"),
        ("https://example.com:0/", "url: the URL's port is not a number from 1 to 65535"),
        ("https://example.com:70000/", "url: the URL's port is not a number from 1 to 65535"),
        ("https://example.com:x/", "url: the URL's port is not a number from 1 to 65535"),
        ("https://exa_mple-.com/", "url: the URL's host 'exa_mple-.com' is not a DNS name"),
        ("https://a..b/", "url: the URL's host 'a..b' is not a DNS name"),
        ("https://%31%32%37.0.0.1/", "url: the URL's host '%31%32%37.0.0.1' is not an IPv4 address"),
        ("https://%6cocalhost/", "url: the URL's host '%6cocalhost' is not a DNS name"),
        ("https://[fe80::1%25eth0]/", "url: the URL's IPv6 host must not carry a zone"),
        ("https://[zz::1]/", "url: the URL's host in [...] is not an IPv6 address"),
        ("https://[::1/", "url: the URL's host in [...] is not an IPv6 address"),
        ("https://256.1.1.1/", "url: the URL's host '256.1.1.1' is not an IPv4 address"),
        ("https://1.2.3.4.5/", "url: the URL's host '1.2.3.4.5' is not an IPv4 address"),
        ("https://08.1.1.1/", "url: the URL's host '08.1.1.1' is not an IPv4 address"),
        ("https://4294967296/", "url: the URL's host '4294967296' is not an IPv4 address"),
    ],
)
def test_urls_refused_name_the_field_and_the_reason(url: str, message: str) -> None:
    assert refusal(url).startswith(message)


def test_the_field_name_comes_first() -> None:
    assert refusal("https://a.test/\r\n", field="inputs[1].url").startswith("inputs[1].url: the URL holds a control")
    assert refusal("ftp://a.test/", field="output.put[0].url").startswith("output.put[0].url: the URL must be")


def test_the_length_bound_is_inclusive() -> None:
    base = "https://example.com/"
    longest = base + "a" * (MAX_URL_CHARS - len(base))
    assert parse_url(longest, field="url").target == "/" + "a" * (MAX_URL_CHARS - len(base))
    assert refusal(longest + "a") == f"url: the URL is {MAX_URL_CHARS + 1:,} characters long; at most 8,192 are taken"


def test_http_is_allowed_only_when_asked() -> None:
    parsed = parse_url("http://127.0.0.1:8080/hooks?x=1#top", field="url", allow_http=True)
    assert (parsed.scheme, parsed.host, parsed.port, parsed.target) == ("http", "127.0.0.1", 8080, "/hooks?x=1")
    assert refusal("http://127.0.0.1:8080/hooks").startswith("url: the URL must be an absolute https:// URL")
    assert refusal("ftp://a.test/", allow_http=True).startswith("url: the URL must be an absolute https:// or http://")


def test_a_parsed_url_keeps_the_text_and_defaults_the_port() -> None:
    parsed = parse_url("HTTPS://Files.Example.COM./a/b.pdf?X-Amz-Signature=ab%2F", field="url")
    assert (parsed.scheme, parsed.host, parsed.port) == ("https", "files.example.com", 443)
    assert parsed.target == "/a/b.pdf?X-Amz-Signature=ab%2F"
    assert parsed.text == "HTTPS://Files.Example.COM./a/b.pdf?X-Amz-Signature=ab%2F"
    assert parsed.address is None
    assert parse_url("https://example.com", field="url").target == "/"


@pytest.mark.parametrize(
    ("host", "address"),
    [
        ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("0X7F000001", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("0x7f.1", "127.0.0.1"),
        ("127.0.1", "127.0.0.1"),
        ("2852039166", "169.254.169.254"),
        ("0xa9.0xfe.0xa9.0xfe", "169.254.169.254"),
        ("0", "0.0.0.0"),
        ("8.8.8.8.", "8.8.8.8"),
        ("[::ffff:127.0.0.1]", str(ipaddress.ip_address("::ffff:127.0.0.1"))),  # its text differs by Python
        ("[0:0:0:0:0:ffff:7f00:0001]", str(ipaddress.ip_address("::ffff:127.0.0.1"))),
    ],
)
def test_numeric_hosts_are_read_as_the_address_they_mean(host: str, address: str) -> None:
    parsed = parse_url(f"https://{host}/", field="url")
    assert parsed.host == address
    assert str(parsed.address) == address
