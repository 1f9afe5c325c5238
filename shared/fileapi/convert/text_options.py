"""The text converters' option values, for the options models to import without loading the converters."""

from __future__ import annotations

from enum import StrEnum

MAX_CONTEXT = 10_000  # text/diff's unchanged lines around each change, at most
WORDS_PER_MINUTE = 238  # text/word-count's reading speed


class HashAlgorithm(StrEnum):
    """The digests offered (sha256 is the default of /v1/file/hash)."""

    MD5 = "md5"
    SHA1 = "sha1"
    SHA256 = "sha256"
    SHA384 = "sha384"
    SHA512 = "sha512"
