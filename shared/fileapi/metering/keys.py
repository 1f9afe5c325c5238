"""API key format: `sk_live_` plus 43 URL-safe characters (32 random bytes); stored only as SHA-256."""

from __future__ import annotations

import hashlib
import re
import secrets

KEY_PREFIX = "sk_live_"
_KEY_PATTERN = re.compile(r"sk_live_[A-Za-z0-9_-]{32,128}")
LOGGED_KEY_CHARS = 12


def generate_key() -> str:
    """A new random API key (256 bits from the OS CSPRNG)."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


def is_well_formed(key: str) -> bool:
    """True when `key` has the shape of an API key (it may still be unknown)."""
    return _KEY_PATTERN.fullmatch(key) is not None


def hash_key(key: str) -> str:
    """The SHA-256 hex digest under which a key is stored."""
    return hashlib.sha256(key.encode("ascii")).hexdigest()


def key_prefix(key: str) -> str:
    """The part of a key that may appear in logs: its first 12 characters."""
    return key[:LOGGED_KEY_CHARS]
