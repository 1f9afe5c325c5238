"""Keys, plans, rate limits and monthly quotas, kept in DynamoDB (no FastAPI here)."""
