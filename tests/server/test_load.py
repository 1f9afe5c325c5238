"""Under load: a mixed workload for 60 s and at least 10,000 requests against `fileapi serve --workers 2`
over loopback: nothing but the expected answers (200, the invalid inputs' 400, the starter key's
429), and the server's resident memory stable across the requests after warm-up."""

from __future__ import annotations

import pytest

from tests.load import describe, run_local

# The two longest server runs (each a 2-worker server and a single-threaded local DynamoDB endpoint) take
# turns on one xdist worker (make test runs --dist loadgroup), so neither starves the other's endpoint.
pytestmark = [pytest.mark.server, pytest.mark.xdist_group("long-server-runs")]
MAX_RSS_GROWTH_MIB = 48


def test_mixed_load_gives_only_expected_answers_and_steady_memory() -> None:
    report = run_local(seconds=60, min_requests=10_000, workers=2)
    print(describe(report))
    assert report.requests >= 10_000, describe(report)
    assert report.unexpected == {}, describe(report)
    assert set(report.statuses) <= {"200", "400", "429"}
    assert report.statuses.get("429", 0) > 0  # the starter key met its rate limit
    assert report.requests_between_rss_samples >= 9_000
    assert report.rss_growth_mib < MAX_RSS_GROWTH_MIB, describe(report)
