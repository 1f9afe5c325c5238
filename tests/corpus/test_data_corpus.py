"""The Data family against public test suites in ../shared/corpus (skipped when absent)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.helpers import CORPUS, auth, corpus_dir, post_bytes

pytestmark = pytest.mark.corpus

PARSING = CORPUS / "JSONTestSuite" / "test_parsing"
JSON_CASES = sorted(PARSING.glob("*.json")) if PARSING.is_dir() else []
CSV_CASES = sorted((CORPUS / "csv-spectrum" / "csvs").glob("*.csv")) if (CORPUS / "csv-spectrum").is_dir() else []


def test_json_suite_is_present() -> None:
    corpus_dir("JSONTestSuite")
    assert len(JSON_CASES) == 318


@pytest.mark.parametrize("path", JSON_CASES, ids=[path.name for path in JSON_CASES])
def test_json_format_follows_the_suite_verdict(path: Path, api: TestClient, key: str) -> None:
    data = path.read_bytes()
    response = api.post("/v1/data/json-format", content=data, headers=auth(key))
    verdict = path.name[0]
    minified = api.post("/v1/data/json-minify", content=data, headers=auth(key))
    if verdict == "y":
        assert response.status_code == 200, response.text
        assert json.loads(response.content) == json.loads(data)
        assert json.loads(minified.content) == json.loads(data)
    elif verdict == "n":
        assert response.status_code == 400
        assert response.json()["error"] == "invalid_input"
        assert (minified.status_code, minified.json()["error"]) == (400, "invalid_input")
    else:  # implementation-defined: either answer, never a 5xx
        assert response.status_code in (200, 400)


def test_csv_spectrum_is_present() -> None:
    corpus_dir("csv-spectrum")
    assert len(CSV_CASES) == 11


@pytest.mark.parametrize("path", CSV_CASES, ids=[path.stem for path in CSV_CASES])
def test_csv_spectrum_gives_the_expected_json(path: Path, api: TestClient, key: str) -> None:
    data = path.read_bytes()
    if path.stem.endswith("_crlf") and b"\r\n" not in data:
        # The upstream repository checks these out with CRLF (.gitattributes eol=crlf).
        data = data.replace(b"\n", b"\r\n")
    expected = json.loads((path.parent.parent / "json" / f"{path.stem}.json").read_text(encoding="utf-8"))
    assert post_bytes(api, key, "/v1/data/csv-to-json", data).json() == expected
