"""MCP server of the File and Data Utility API (`fileapi-mcp`)."""
