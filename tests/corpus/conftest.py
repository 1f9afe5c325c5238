"""Corpus tests send thousands of requests: one key per module (not per test) keeps the DynamoDB
endpoint's work to the requests themselves."""

from __future__ import annotations

import uuid

import pytest

from fileapi.metering.admin import create_key
from fileapi.metering.storage import AccountStore


@pytest.fixture(scope="module")
def key(store: AccountStore) -> str:
    return create_key(store, email=f"corpus-{uuid.uuid4().hex}@example.com", plan="business")
