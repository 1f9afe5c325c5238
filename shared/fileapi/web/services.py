"""The process-wide service objects (the Meter), built once from the settings on first use.

Tests and the local runner may install their own with `set_meter`.
"""

from __future__ import annotations

import threading

from fileapi.account.keys import KeyService
from fileapi.account.mailer import create_mailer
from fileapi.metering.dynamodb import DynamoStore, create_client
from fileapi.metering.meter import Meter
from fileapi.settings import get_settings

_lock = threading.Lock()
_meter: Meter | None = None
_keys: KeyService | None = None


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
    global _meter, _keys
    with _lock:
        _meter = meter
        _keys = None


def get_key_service() -> KeyService:
    """Key rotation and recovery over the Meter's store and the configured mailer."""
    global _keys
    if _keys is None:
        store = get_meter().store
        with _lock:
            if _keys is None:
                _keys = KeyService(store, create_mailer(get_settings()))
    return _keys
