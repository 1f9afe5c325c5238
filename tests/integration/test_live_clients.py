"""The Python SDK and the MCP server against a running API (a deployed stack after each deploy, or
`fileapi run`): the clients work with the real gateway, not only with the local server.

Set FILEAPI_BASE_URL and FILEAPI_API_KEY; without them every test here is skipped.
"""

from __future__ import annotations

import base64
import os
import sys
from pathlib import Path

import anyio
import pytest
from fileapi_client import FileApi
from fileapi_client.errors import InvalidInput
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.integration.live import API_KEY, BASE_URL, LIVE

pytestmark = LIVE


def test_python_sdk() -> None:
    with FileApi(API_KEY, base_url=BASE_URL) as api:
        encoded = api.data_base64_encode(b"\x00\xffhi")
        assert encoded.data == base64.b64encode(b"\x00\xffhi").decode()
        assert encoded.quota_remaining is not None and encoded.request_id
        qr = api.qr_generate(text="https://example.com", size=4)
        assert api.qr_read(qr.data).data["text"] == "https://example.com"
        assert api.usage().data["used_this_month"] >= 2
        with pytest.raises(InvalidInput):
            api.data_base64_decode("%%%")


def test_mcp_server_over_stdio() -> None:
    params = StdioServerParameters(
        command=str(Path(sys.executable).parent / "fileapi-mcp"),
        env={**os.environ, "FILEAPI_API_KEY": API_KEY, "FILEAPI_BASE_URL": BASE_URL},
    )

    async def main() -> tuple[int, object]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            counted = await session.call_tool("text_word_count", {"text": "three little words"})
            return len(tools), counted.structured_content

    count, counted = anyio.run(main)
    assert count >= 46
    assert isinstance(counted, dict) and counted["words"] == 3
