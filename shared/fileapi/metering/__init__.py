"""Keys, plans, rate limits and monthly quotas over two storage interfaces, kept in DynamoDB by `dynamo`.

No FastAPI here; the module list is in docs/metering.md, "Layout".
"""
