"""Metering's stores on DynamoDB: one table, its items, and the storage interfaces implemented over them."""
