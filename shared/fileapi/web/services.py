"""The process-wide service objects (the Meter), built once from the settings on first use.

Tests and the local runner may install their own with `set_meter`.
"""

from __future__ import annotations

import random
import threading

from fileapi.account.billing import BillingEvents
from fileapi.account.keys import KeyService
from fileapi.account.mailer import create_mailer
from fileapi.account.portal import BillingPortal
from fileapi.metering.dynamodb import DynamoStore, create_client
from fileapi.metering.meter import Meter
from fileapi.settings import Settings, get_settings

_lock = threading.Lock()
_meter: Meter | None = None
_keys: KeyService | None = None
_billing: BillingEvents | None = None
_portal: BillingPortal | None = None


def get_meter() -> Meter:
    """The Meter of this process, over the configured DynamoDB table."""
    global _meter
    if _meter is None:
        with _lock:
            if _meter is None:
                settings = get_settings()
                client = create_client(region=settings.region, endpoint_url=settings.dynamodb_endpoint)
                _meter = Meter(DynamoStore(settings.table_name, client), upgrade_url=settings.upgrade_url)
    return _meter


def set_meter(meter: Meter | None) -> None:
    """Install `meter` for this process (None: build it from the settings again on next use)."""
    global _meter, _keys, _billing, _portal
    with _lock:
        _meter = meter
        _keys = None
        _billing = None
        _portal = None


def get_key_service() -> KeyService:
    """Key rotation and recovery over the Meter's store and the configured mailer."""
    global _keys
    if _keys is None:
        store = get_meter().store
        with _lock:
            if _keys is None:
                _keys = KeyService(store, create_mailer(get_settings()))
    return _keys


def get_billing_events() -> BillingEvents:
    """Stripe event handling; the webhook secret comes from FILEAPI_STRIPE_WEBHOOK_SECRET or, in AWS, the
    SSM SecureString named by FILEAPI_STRIPE_WEBHOOK_SECRET_PARAM (cached for 5 minutes)."""
    global _billing
    if _billing is None:
        store = get_meter().store
        with _lock:
            if _billing is None:
                settings = get_settings()
                _billing = BillingEvents(store, create_mailer(settings), lambda: webhook_secret(settings))
    return _billing


def get_billing_portal() -> BillingPortal:
    """Portal sessions with the Stripe secret key from FILEAPI_STRIPE_SECRET_KEY or the SSM SecureString
    named by FILEAPI_STRIPE_SECRET_KEY_PARAM (cached for 5 minutes)."""
    global _portal
    if _portal is None:
        settings = get_settings()
        with _lock:
            if _portal is None:
                _portal = BillingPortal(
                    lambda: secret(settings.stripe_secret_key, settings.stripe_secret_key_parameter),
                    return_url=settings.billing_return_url,
                    api_base=settings.stripe_api_base,
                )
    return _portal


def webhook_secret(settings: Settings) -> str | None:
    """The Stripe endpoint secret from the environment, else from SSM Parameter Store."""
    return secret(settings.stripe_webhook_secret, settings.stripe_webhook_secret_parameter)


def secret(value: str | None, parameter: str | None) -> str | None:
    """A secret given directly (local use), else read from SSM Parameter Store (decrypted, cached 5 minutes)."""
    if value:
        return value
    if parameter:
        from aws_lambda_powertools.utilities import parameters

        return str(parameters.get_parameter(parameter, decrypt=True, max_age=300))
    return None


def reset_after_restore() -> None:
    """SnapStart: a function restored from a snapshot must not reuse the snapshot's network clients
    (their connections are gone, and every restored copy would share them) nor its random state."""
    global _meter, _keys, _billing, _portal
    with _lock:
        _meter = _keys = _billing = _portal = None
    random.seed()


def register_snapstart_hooks() -> None:
    """Register `reset_after_restore` with the Lambda runtime's SnapStart hooks, where they exist."""
    try:
        from snapshot_restore_py import register_after_restore  # only in the Lambda runtime
    except ImportError:
        return
    register_after_restore(reset_after_restore)
