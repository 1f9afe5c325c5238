"""Under load: a mixed workload of 4,000 requests from 8 clients against `fileapi serve --workers 2` over
loopback gets nothing but the expected answers (200, the invalid inputs' 400, the starter key's 429), and the
server's resident memory (its processes and their conversion workers) stays steady after warm-up. How fast is
`make load`'s and `make bench`'s to say, not this test's."""

from __future__ import annotations

import pytest

from tools.load import describe, run_local

# The two longest server runs (each a 2-worker server and a single-threaded local DynamoDB endpoint) take
# turns on one xdist worker (make test runs --dist loadgroup), so neither starves the other's endpoint.
pytestmark = [pytest.mark.server, pytest.mark.xdist_group("long-server-runs")]
REQUESTS = 4_000
MAX_RSS_GROWTH_MIB = 48


def test_mixed_load_gives_only_expected_answers_and_steady_memory() -> None:
    report = run_local(seconds=0, min_requests=REQUESTS, max_seconds=3_600)
    print(describe(report))
    assert report.requests >= REQUESTS, describe(report)
    assert report.unexpected == {}, describe(report)
    assert set(report.statuses) <= {"200", "400", "429"}
    assert report.statuses.get("429", 0) > 0  # the starter key met its rate limit
    assert report.requests_between_rss_samples >= REQUESTS - 1_000  # all but the warm-up's
    assert report.rss_growth_mib < MAX_RSS_GROWTH_MIB, describe(report)
