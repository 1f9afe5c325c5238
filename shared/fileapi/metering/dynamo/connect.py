"""Metering's stores over one DynamoDB table (the storage room opens the table: fileapi.storage.connect)."""

from __future__ import annotations

from fileapi.metering.dynamo.account_store import DynamoAccountStore
from fileapi.metering.dynamo.admission_store import DynamoAdmissionStore
from fileapi.metering.storage import Stores
from fileapi.storage.connect import open_configured_table as open_configured_table  # where the CLI looks
from fileapi.storage.connect import open_table as open_table
from fileapi.storage.table import DynamoTable


def dynamo_stores(table: DynamoTable) -> Stores:
    """The admission and account stores over one table."""
    return Stores(admission=DynamoAdmissionStore(table), accounts=DynamoAccountStore(table))
