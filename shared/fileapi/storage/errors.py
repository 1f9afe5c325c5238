"""The storage room's errors: what a store call can end in, whatever store it is (metering's, operations',
webhooks', idempotency keys')."""

from __future__ import annotations


class StoreError(Exception):
    """Base of the stores' domain errors."""


class Ambiguous(StoreError):
    """A write's outcome is unknown: it was sent, and its reply was lost (timeout, closed connection,
    a 5xx from the store). It may or may not have been applied, so it must not be retried blindly."""


class StoreUnavailable(StoreError):
    """The store could not be reached, or throttled us, after the bounded retries; nothing was applied."""
