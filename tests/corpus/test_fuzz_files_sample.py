"""A sample of `make fuzz-files` in the suite: corpus files and their mutants through the local app."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.helpers import CORPUS, corpus_dir
from tools.fuzz_files import MUTATIONS, SLOW_SECONDS, cases, report, sweep

pytestmark = pytest.mark.corpus

# Files per family: with the mutants of a quarter of them, about 400 requests (about a minute here).
SAMPLE = 5


def test_a_sample_of_the_corpus_gives_no_server_error_and_no_slow_answer(api: TestClient, key: str) -> None:
    corpus_dir(".")
    outcome = sweep(api, key, CORPUS, seed=18, sample=SAMPLE)
    assert outcome.requests > 200
    assert (outcome.server_errors, outcome.slow) == (0, 0), report(outcome)
    assert all(stats.max_seconds <= SLOW_SECONDS for stats in outcome.stats.values())


def test_mutants_are_the_same_for_the_same_seed() -> None:
    corpus_dir(".")
    first = [(case.name, case.data) for case in cases(CORPUS, seed=3, sample=2, families={"pdf", "image"})]
    again = [(case.name, case.data) for case in cases(CORPUS, seed=3, sample=2, families={"pdf", "image"})]
    assert first == again
    assert {name.partition("#")[2] for name, _ in first} <= {"", *MUTATIONS}
