"""The laptop runner and the admin CLI: template-driven local server, local DynamoDB endpoint."""
