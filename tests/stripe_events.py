"""Stripe events signed the way Stripe signs them, with the suite's endpoint secret."""

from __future__ import annotations

from typing import Any

from fileapi.account.stripe_events import checkout_completed, sign, subscription_event

SECRET = "whsec_test_secret_for_the_suite"

__all__ = ["SECRET", "checkout_completed", "signed", "subscription_event"]


def signed(event: dict[str, Any], *, secret: str = SECRET, at: int | None = None) -> tuple[bytes, str]:
    return sign(event, secret=secret, at=at)
