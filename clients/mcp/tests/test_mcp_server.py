"""`fileapi-mcp` driven by the MCP SDK's own client over stdio, against `fileapi run`."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from fileapi_client import FileApi
from fileapi_client._generated import OPERATIONS
from fileapi_mcp.tools import PIPELINE_OPERATION, RUN_PIPELINE
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from PIL import Image
from pypdf import PdfReader, PdfWriter

from fileapi.local.dynamo import free_port

pytestmark = pytest.mark.server
BIN = Path(sys.executable).parent


def _pdf(pages: int) -> bytes:
    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=200, height=200)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (40, 30), (0, 128, 255)).save(out, "PNG")
    return out.getvalue()


def run_session(local_api: Any, steps: Any) -> Any:
    params = StdioServerParameters(
        command=str(BIN / "fileapi-mcp"),
        env={**os.environ, "FILEAPI_API_KEY": local_api.api_key, "FILEAPI_BASE_URL": local_api.base_url},
    )

    async def main() -> Any:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await steps(session)

    return anyio.run(main)


def test_lists_one_tool_per_operation_with_schemas(local_api: Any) -> None:
    async def steps(session: ClientSession) -> list[types.Tool]:
        return (await session.list_tools()).tools

    tools = run_session(local_api, steps)
    names = [RUN_PIPELINE if name == PIPELINE_OPERATION else name for name in OPERATIONS]
    assert sorted(tool.name for tool in tools) == sorted(names)
    by_name = {tool.name: tool for tool in tools}
    resize = by_name["image_resize"]
    assert resize.description and "Resize" in resize.description
    assert resize.input_schema["properties"]["fit"]["enum"] == ["cover", "contain", "fill", "inside", "outside"]
    assert {"file_path", "file_base64", "output_path"} <= set(resize.input_schema["properties"])
    assert by_name["qr_generate"].input_schema["required"] == ["text"]


def test_calls_tools_image_pdf_json_and_error(local_api: Any, tmp_path: Path) -> None:
    source = tmp_path / "in.png"
    source.write_bytes(_png())
    merged = tmp_path / "merged.pdf"

    async def steps(session: ClientSession) -> dict[str, types.CallToolResult]:
        return {
            "resize": await session.call_tool("image_resize", {"file_path": str(source), "width": 20, "format": "png"}),
            "scored": await session.call_tool(
                "image_convert", {"file_path": str(source), "to": "webp", "targetScore": 80}
            ),
            "merge": await session.call_tool(
                "pdf_merge",
                {
                    "files_base64": [base64.b64encode(_pdf(1)).decode(), base64.b64encode(_pdf(2)).decode()],
                    "output_path": str(merged),
                },
            ),
            "hash": await session.call_tool("file_hash", {"file_base64": base64.b64encode(b"abc").decode()}),
            "colour": await session.call_tool("color_convert", {"color": "rgb(255 0 0)"}),
            "bad": await session.call_tool("image_convert", {"file_base64": "bm90IGFuIGltYWdl", "to": "png"}),
            "both": await session.call_tool("file_hash", {}),
        }

    results = run_session(local_api, steps)
    image = results["resize"].content[-1]
    assert isinstance(image, types.ImageContent) and image.mime_type == "image/png"
    assert Image.open(io.BytesIO(base64.b64decode(image.data))).size == (20, 15)
    assert isinstance(results["resize"].meta, dict) and "quotaRemaining" in results["resize"].meta
    assert "headers" not in results["resize"].meta  # a PNG has no quality to report
    said = results["scored"].meta["headers"]  # what the conversion said in its documented headers
    assert float(said["X-Quality-Score"]) >= 80 and 0 <= int(said["X-Encoder-Quality"]) <= 100
    assert not results["merge"].is_error and len(PdfReader(merged).pages) == 3
    assert results["hash"].structured_content["hex"].startswith("ba7816bf")
    assert results["colour"].structured_content["hex"] == "#ff0000"
    bad = results["bad"]
    assert bad.is_error and bad.structured_content["error"] == "unsupported_format"
    assert results["both"].is_error and "file_path" in results["both"].content[0].text


def test_large_local_paths_and_upload_ids_go_through_operations(local_api: Any, tmp_path: Path) -> None:
    large = tmp_path / "large.bin"
    large.write_bytes(os.urandom(5_000_000))  # over the API's synchronous limit of 4,500,000 bytes
    first, second = tmp_path / "one.pdf", tmp_path / "two.pdf"
    first.write_bytes(_pdf(1))
    second.write_bytes(_pdf(2))
    merged = tmp_path / "merged.pdf"
    with FileApi(local_api.api_key, base_url=local_api.base_url) as client:
        image_upload = client.upload_file(_png(), content_type="image/png")
        pdf_uploads = [client.upload_file(path, content_type="application/pdf") for path in (first, second, first)]

    async def steps(session: ClientSession) -> dict[str, types.CallToolResult]:
        return {
            "hash": await session.call_tool("file_hash", {"file_path": str(large), "algorithm": "sha256"}),
            "resize": await session.call_tool("image_resize", {"file_upload": image_upload, "width": 20}),
            "merge": await session.call_tool("pdf_merge", {"files_uploads": pdf_uploads, "output_path": str(merged)}),
            "two": await session.call_tool(
                "image_resize", {"file_upload": image_upload, "file_path": str(large), "width": 20}
            ),
            "unknown": await session.call_tool("image_resize", {"file_upload": "upl_" + "0" * 26, "width": 20}),
        }

    results = run_session(local_api, steps)
    assert results["hash"].structured_content == {
        "algorithm": "sha256",
        "hex": hashlib.sha256(large.read_bytes()).hexdigest(),
        "base64": base64.b64encode(hashlib.sha256(large.read_bytes()).digest()).decode(),
        "bytes": 5_000_000,
    }
    image = results["resize"].content[-1]
    assert isinstance(image, types.ImageContent) and image.mime_type == "image/png"
    assert Image.open(io.BytesIO(base64.b64decode(image.data))).size == (20, 15)
    assert not results["merge"].is_error and len(PdfReader(merged).pages) == 4
    two = results["two"]
    assert two.is_error and two.structured_content["error"] == "invalid_arguments"
    assert two.content[0].text == "invalid_arguments: give exactly one of file_path, file_base64, file_upload"
    assert results["unknown"].is_error and results["unknown"].structured_content["error"] == "not_found"


def test_streamable_http_transport(local_api: Any) -> None:
    port = free_port()
    env = {**os.environ, "FILEAPI_API_KEY": local_api.api_key, "FILEAPI_BASE_URL": local_api.base_url}
    server = subprocess.Popen(
        [str(BIN / "fileapi-mcp"), "--http", "--port", str(port)], env=env, stderr=subprocess.PIPE, text=True
    )
    url = f"http://127.0.0.1:{port}/mcp"

    async def main() -> tuple[int, types.CallToolResult]:
        async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            return len(tools), await session.call_tool("text_word_count", {"text": "two words"})

    try:
        assert server.stderr is not None
        # it says where it listens once it does (the first line it writes)
        announced = server.stderr.readline()
        assert announced == (
            f"fileapi-mcp: MCP over streamable HTTP on {url} (calling {local_api.base_url}); Ctrl-C stops it\n"
        )
        count, counted = anyio.run(main)
    finally:
        server.terminate()
        server.wait(timeout=20)
    assert count == len(OPERATIONS)
    assert counted.structured_content["words"] == 2


def test_run_pipeline_takes_local_paths_and_waits_for_the_end(local_api: Any, tmp_path: Path) -> None:
    first, second = tmp_path / "a.pdf", tmp_path / "b.pdf"
    first.write_bytes(_pdf(1))
    second.write_bytes(_pdf(2))

    async def steps(session: ClientSession) -> types.CallToolResult:
        return await session.call_tool(
            RUN_PIPELINE,
            {
                "inputs": [{"path": str(first)}, {"path": str(second)}],
                "stages": [{"run": "pdf/merge"}, {"run": "pdf/info"}],
            },
        )

    result = run_session(local_api, steps)
    assert not result.is_error, result.content
    operation = result.structured_content
    assert operation["status"] == "succeeded" and operation["details"]["pageCount"] == 3
    assert [stage["run"] for stage in operation["stages"]] == ["pdf/merge", "pdf/info"]
