"""API key format: `sk_live_`, 43 random base62 characters (256 bits), and a 6-character checksum.

The checksum is the CRC32 of everything before it, in base62 (as GitHub's tokens carry theirs). It is
no secret and proves nothing about a key's validity, but it lets anyone tell a real key from a random
or mistyped string offline: the API refuses a key whose checksum does not match with 401 before any
store call, and a secret scanner can check a match before reporting a leak. Keys are stored only as
their SHA-256.

Keys of the earlier format (`sk_live_` and 43 URL-safe characters, no checksum) keep working: they
cannot be checked offline, so they are looked up in the store (an unknown one is remembered for a
while, as any unknown key is), their answers carry a `Deprecation` header, and rotation replaces them
with a key of this format.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import zlib

from fileapi.errors import Unauthorized

KEY_PREFIX = "sk_live_"
BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
RANDOM_CHARS = 43  # 62**43 > 2**256
CHECKSUM_CHARS = 6  # 62**6 > 2**32
KEY_LENGTH = len(KEY_PREFIX) + RANDOM_CHARS + CHECKSUM_CHARS
_KEY_PATTERN = re.compile(rf"{KEY_PREFIX}[0-9A-Za-z]{{{RANDOM_CHARS + CHECKSUM_CHARS}}}")
# The earlier format: `secrets.token_urlsafe(32)`, 43 characters of A-Z a-z 0-9 _ -.
LEGACY_RANDOM_CHARS = 43
_LEGACY_PATTERN = re.compile(rf"{KEY_PREFIX}[0-9A-Za-z_-]{{{LEGACY_RANDOM_CHARS}}}")
LOGGED_KEY_CHARS = 12


def _base62(value: int, width: int) -> str:
    digits = []
    for _ in range(width):
        value, digit = divmod(value, 62)
        digits.append(BASE62[digit])
    return "".join(reversed(digits))


def checksum(body: str) -> str:
    """The 6 base62 characters of the CRC32 of `body` (the prefix and the random part)."""
    return _base62(zlib.crc32(body.encode("ascii")), CHECKSUM_CHARS)


def key_from_random(random_part: str) -> str:
    """The key made of `random_part` (43 base62 characters) and its checksum.

    :raises ValueError: `random_part` is not 43 base62 characters.
    """
    if len(random_part) != RANDOM_CHARS or any(char not in BASE62 for char in random_part):
        raise ValueError(f"the random part of a key is {RANDOM_CHARS} characters of 0-9 A-Z a-z")
    body = KEY_PREFIX + random_part
    return body + checksum(body)


def generate_key() -> str:
    """A new random API key (256 bits from the OS CSPRNG)."""
    return key_from_random("".join(secrets.choice(BASE62) for _ in range(RANDOM_CHARS)))


def is_well_formed(key: str) -> bool:
    """True when `key` has the shape of an API key and its checksum matches (it may still be unknown)."""
    if _KEY_PATTERN.fullmatch(key) is None:
        return False
    return checksum(key[:-CHECKSUM_CHARS]) == key[-CHECKSUM_CHARS:]


def is_legacy_key(key: str) -> bool:
    """True when `key` has the shape of a key of the earlier format (no checksum: it may be unknown)."""
    return _LEGACY_PATTERN.fullmatch(key) is not None


def is_key(key: str) -> bool:
    """True when `key` is a key of either format as far as can be told offline."""
    return is_well_formed(key) or is_legacy_key(key)


# An empty SHA-256 context, copied for each key: a new hash object goes through OpenSSL's lookup of the algorithm
# (EVP_DigestInit), and a copy does not, which saved 2.5 us of a metered request's ~70 (`make bench-quick`). Never
# updated itself, so threads may copy it at once.
_EMPTY_SHA256 = hashlib.sha256()


def hash_key(key: str) -> str:
    """The SHA-256 hex digest under which a key is stored."""
    digest = _EMPTY_SHA256.copy()
    digest.update(key.encode("ascii"))
    return digest.hexdigest()


def key_prefix(key: str) -> str:
    """The part of a key that may appear in logs: its first 12 characters."""
    return key[:LOGGED_KEY_CHARS]


def parse_bearer(authorization: str | None) -> str:
    """The key of an `Authorization: Bearer <key>` header, checked offline (shape and checksum; a key of the
    earlier format by its shape alone).

    :raises Unauthorized: missing header, another scheme (or none: the key alone), a value that is not a key
        (saying how a key looks, never what was sent), or a key whose checksum does not match (mistyped, cut
        short, or made up).
    """
    if not authorization:
        raise Unauthorized("missing API key: send 'Authorization: Bearer sk_live_...'")
    scheme, _, key = authorization.strip().partition(" ")
    key = key.strip()
    if scheme.startswith(KEY_PREFIX):
        raise Unauthorized("malformed Authorization header: the word Bearer is missing; send 'Bearer sk_live_...'")
    if scheme.lower() != "bearer":
        raise Unauthorized("malformed Authorization header: send the key as a bearer token, 'Bearer sk_live_...'")
    if is_legacy_key(key):
        return key
    if _KEY_PATTERN.fullmatch(key) is None:
        raise Unauthorized(
            f"invalid API key: a key is '{KEY_PREFIX}' and {RANDOM_CHARS + CHECKSUM_CHARS} letters and digits "
            f"({KEY_LENGTH} characters), and this is not; check that it was copied whole, without spaces or quotes"
        )
    if not is_well_formed(key):
        raise Unauthorized("invalid API key: its checksum does not match; check that it was copied whole")
    return key
