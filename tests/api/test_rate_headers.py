"""The RateLimit headers stay within their own definition: RateLimit-Remaining (requests that may be sent
at once now) is never more than RateLimit-Limit (the bucket's capacity), for a key on one item and for a
key whose bucket is spread over several (business: a shard no request has reached yet is a full bucket,
not one that has been refilling since 1970)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from fileapi.metering.ratelimit import Bucket
from tests.conftest import MakeKey
from tests.helpers import auth


@pytest.mark.parametrize("plan", ["starter", "pro", "business"])
def test_remaining_is_at_most_the_limit(api: TestClient, make_key: MakeKey, plan: str) -> None:
    key = make_key(plan=plan)
    for _ in range(3):
        response = api.post("/v1/data/base64-encode", content=b"x", headers=auth(key))
        assert response.status_code == 200
        limit, remaining = int(response.headers["RateLimit-Limit"]), int(response.headers["RateLimit-Remaining"])
        assert 0 <= remaining < limit, (plan, remaining, limit)


def test_a_bucket_untouched_for_long_is_full_not_more() -> None:
    bucket = Bucket.of(1_800_000_000_000_000, interval_us=200_000, burst=15)
    assert bucket.remaining_after(0) == 15
    assert bucket.remaining_after(bucket.next_tat(0)) == 14
