"""The storage room: the DynamoDB table wrapper (retries, budgets, conditions) and its errors, under every store
of the service (metering, operations and uploads, webhooks, idempotency keys). Imports nothing above settings."""
