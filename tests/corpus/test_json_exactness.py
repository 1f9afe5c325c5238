"""json-format and json-minify never change the data: every key, string and number keeps its text.

Through the HTTP app; the JSONTestSuite part needs ../shared/corpus (skipped when absent).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.helpers import CORPUS, auth, corpus_dir

pytestmark = pytest.mark.corpus

ACCEPTED = sorted((CORPUS / "JSONTestSuite" / "test_parsing").glob("y_*.json")) if CORPUS.is_dir() else []
# An independent reference: white space removed outside strings by a regular expression.
_OUTSIDE_STRINGS = re.compile(rb'("(?:[^"\\]|\\.)*")|[ \t\n\r]+')


def reference_minify(data: bytes) -> bytes:
    return _OUTSIDE_STRINGS.sub(lambda match: match.group(1) or b"", data.removeprefix(b"\xef\xbb\xbf"))


def format_json(api: TestClient, key: str, data: bytes, indent: int = 2) -> bytes:
    response = api.post("/v1/data/json-format", params={"indent": str(indent)}, content=data, headers=auth(key))
    assert response.status_code == 200, response.text
    return response.content


def minify_json(api: TestClient, key: str, data: bytes) -> bytes:
    response = api.post("/v1/data/json-minify", content=data, headers=auth(key))
    assert response.status_code == 200, response.text
    return response.content


def pairs(data: bytes) -> object:
    """The document with every object as its list of (key, value) pairs: duplicates and order kept."""
    return json.loads(data, object_pairs_hook=list, parse_float=str, parse_int=str)


@pytest.mark.parametrize(
    "document",
    [
        b'{"a": 1, "a": 2, "b": {"a": [], "a": {}}}',
        b'["caf\\u00e9", "\\/", "\\ud83d\\ude00", "\\"q\\"", "back\\\\slash", "tab\\t", "\\u0000"]',
        b"[1.0e+2, -0, 1E2, 0.10, 123456789012345678901234567890, 1e-7, -0.0, 5e+00]",
        b'{"caf\\u00e9": "caf\\u00e9", "caf\\u00e9": "\\u00e9"}',
        b'{"k": "a  b", "x": ["  ", "\\\\\\"", ""], "e": {}, "l": []}',
    ],
    ids=["duplicates", "escapes", "numbers", "escaped-duplicate-keys", "spaces-in-strings"],
)
@pytest.mark.parametrize("indent", [2, 1, 4, 8])
def test_format_and_minify_keep_every_token(api: TestClient, key: str, document: bytes, indent: int) -> None:
    formatted = format_json(api, key, document, indent)
    minified = minify_json(api, key, document)
    assert minified == reference_minify(document)
    assert reference_minify(formatted) == minified
    assert minify_json(api, key, formatted) == minified
    assert pairs(formatted) == pairs(document)
    second_line = formatted.split(b"\n")[1]
    assert formatted.endswith(b"\n")
    assert len(second_line) - len(second_line.lstrip(b" ")) == indent


def test_deep_nesting_past_the_fast_writer_keeps_its_tokens(api: TestClient, key: str) -> None:
    document = b'{"a":' * 300 + b'[1.50, "\\u00e9", {"d":1,"d":2}]' + b"}" * 300
    formatted = format_json(api, key, document, 3)
    assert reference_minify(formatted) == reference_minify(document) == minify_json(api, key, document)


def test_the_suite_is_present() -> None:
    corpus_dir("JSONTestSuite")
    assert len(ACCEPTED) == 95


@pytest.mark.parametrize("path", ACCEPTED, ids=[path.name for path in ACCEPTED])
def test_accepted_suite_files_round_trip_byte_exact(api: TestClient, key: str, path: Path) -> None:
    data = path.read_bytes()
    minified = minify_json(api, key, data)
    assert minified == reference_minify(data)
    for indent in (2, 4):
        assert minify_json(api, key, format_json(api, key, data, indent)) == minified
