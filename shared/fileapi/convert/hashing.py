"""Digests of byte strings."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass

from fileapi.convert.text_options import HashAlgorithm


@dataclass(frozen=True)
class Digest:
    """A digest: lower-case hex and base64 of the same bytes, and the input's length."""

    algorithm: str
    hex: str
    base64: str
    bytes: int


def hash_bytes(data: bytes, *, algorithm: HashAlgorithm = HashAlgorithm.SHA256) -> Digest:
    """Digest `data` with `algorithm` (hashlib, native speed; the body is not copied)."""
    hasher = hashlib.new(algorithm.value, usedforsecurity=algorithm not in (HashAlgorithm.MD5, HashAlgorithm.SHA1))
    hasher.update(memoryview(data))
    raw = hasher.digest()
    return Digest(algorithm=algorithm.value, hex=raw.hex(), base64=base64.b64encode(raw).decode(), bytes=len(data))
