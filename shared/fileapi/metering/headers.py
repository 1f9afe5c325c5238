"""The metering headers of every metered answer (successes, failures after admission, and 429s).

- X-Quota-Remaining: requests left this UTC month (after this one, when it counted).
- RateLimit-Limit: the bucket's capacity (the plan's burst, in requests).
- RateLimit-Remaining: requests that may be sent at once now.
- RateLimit-Reset: seconds until the bucket is full again (RateLimit-Remaining back at RateLimit-Limit).
- RateLimit-Policy / RateLimit: the same, as the structured fields of the IETF draft
  draft-ietf-httpapi-ratelimit-headers: `"default";q=<burst>;w=<seconds to refill>` and
  `"default";r=<remaining>;t=<reset seconds>`.
"""

from __future__ import annotations

from dataclasses import dataclass

from fileapi.metering.ratelimit import Bucket

POLICY_NAME = "default"

# What each header means, for the OpenAPI document and the docs (one source: this module writes them).
HEADER_DESCRIPTIONS: dict[str, str] = {
    "X-Quota-Remaining": "Requests left this UTC month (after this one, when it counted).",
    "RateLimit-Limit": "Capacity of the key's token bucket (the plan's burst), in requests.",
    "RateLimit-Remaining": "Requests that may be sent at once now; the bucket refills at the plan's sustained rate.",
    "RateLimit-Reset": "Seconds until the bucket is full again (RateLimit-Remaining back at RateLimit-Limit).",
    "RateLimit-Policy": 'IETF draft field, e.g. `"default";q=800;w=2` (capacity q, seconds w to refill).',
    "RateLimit": 'IETF draft field, e.g. `"default";r=799;t=1` (remaining r, seconds t until full).',
}
# Answers to a key of the earlier format (fileapi.metering.keys) carry these (RFC 9745's Deprecation field:
# the date the format was deprecated, 2026-11-23, as epoch seconds; RFC 8288's Link to what to do instead).
DEPRECATED_KEY_HEADERS: dict[str, str] = {
    "Deprecation": "@1795392000",
    "Link": '</v1/keys/rotate>; rel="deprecation"',
}
RETRY_AFTER_DESCRIPTION = (
    "Whole seconds to wait (>= 1): for rate_limited, until the bucket has a token again; for quota_exceeded, "
    "until the quota resets (1st of next month, 00:00 UTC); for service_unavailable, before retrying."
)


@dataclass(frozen=True, slots=True)
class KeyView:
    """What the headers say of a key at one instant: its buckets and its month's quota, summed over its shards.

    :param limit: the key's bucket capacity (the burst), requests.
    :param remaining: requests that may be sent at once now.
    :param reset_seconds: seconds until every bucket is full again.
    :param window_seconds: seconds an empty bucket takes to refill.
    :param quota_remaining: requests left this month (exact for a key on one item; for a sharded key,
        exact on the shard that answered plus the others as this process last saw them).
    """

    limit: int
    remaining: int
    reset_seconds: int
    window_seconds: int
    quota_remaining: int

    def headers(self) -> dict[str, str]:
        """X-Quota-Remaining and the RateLimit-* headers."""
        return {
            "X-Quota-Remaining": str(max(0, self.quota_remaining)),
            "RateLimit-Limit": str(self.limit),
            "RateLimit-Remaining": str(self.remaining),
            "RateLimit-Reset": str(self.reset_seconds),
            "RateLimit-Policy": f'"{POLICY_NAME}";q={self.limit};w={self.window_seconds}',
            "RateLimit": f'"{POLICY_NAME}";r={self.remaining};t={self.reset_seconds}',
        }


def bucket_view(bucket: Bucket, tat_us: int, quota_remaining: int) -> KeyView:
    """The view of a key on one item whose bucket's TAT is `tat_us` at `bucket.now_us`."""
    return KeyView(  # positional, in KeyView's order: limit, remaining, reset, window, quota (every request)
        bucket.burst,
        bucket.remaining_after(tat_us),
        bucket.reset_seconds(tat_us),
        bucket.window_seconds,
        quota_remaining,
    )
