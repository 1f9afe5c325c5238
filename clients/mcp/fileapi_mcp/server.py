"""The MCP server: every API operation as a tool, calling the HTTP API with the user's key.

    fileapi-mcp                       # stdio (what MCP clients start)
    fileapi-mcp --http --port 8765    # streamable HTTP on 127.0.0.1:8765/mcp

FILEAPI_API_KEY and FILEAPI_BASE_URL configure the API it calls, so the key's quota and rate
limits apply to every tool call (rate-limited calls are retried after Retry-After by the SDK).
"""

from __future__ import annotations

import argparse
import base64
import json
import mimetypes
import sys
import uuid
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from fileapi_client import ApiError, AsyncFileApi, OperationTimeout, Result, __version__
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

from fileapi_mcp.tools import OUTPUT_PATH, RUN_PIPELINE, ToolSpec, build_tools, load_spec, sdk_arguments

INSTRUCTIONS = (
    "Tools of the File and Data Utility API: images, PDFs, QR codes and barcodes, SVG, data formats, "
    "hashes, text and colours. Give input files as local paths (*_path; large ones are uploaded), Base64 "
    "(*_base64) or upload ids (*_upload, from uploads_create); binary "
    "outputs are written to output_path when given. Each call counts against the API key's quota."
)


def _meta(tool: ToolSpec, result: Result[Any]) -> dict[str, Any]:
    """The answer's metering headers, and what the conversion said in its own headers (`headers`: X-Quality-Score,
    X-Redactions, ... as the API documents them for the tool's operation)."""
    meta: dict[str, Any] = {
        "quotaRemaining": result.quota_remaining,
        "rateLimitRemaining": result.rate_limit_remaining,
        "requestId": result.request_id,
    }
    said = {name: result.headers[name] for name in tool.answer_headers if name in result.headers}
    if said:
        meta["headers"] = said
    return {key: value for key, value in meta.items() if value is not None}


def tool_result(tool: ToolSpec, result: Result[Any], output_path: str | None) -> types.CallToolResult:
    """The MCP answer for an API result: JSON as text and structured content, images as image content."""
    content: list[types.ContentBlock] = []
    structured: Any = None
    media_type = result.content_type.split(";")[0].strip()
    if isinstance(result.data, bytes):
        if output_path:
            path = Path(output_path).expanduser()
            path.write_bytes(result.data)
            content.append(types.TextContent(text=f"Wrote {len(result.data)} bytes ({media_type}) to {path}"))
        if media_type.startswith("image/") and media_type != "image/svg+xml":
            content.append(types.ImageContent(data=base64.b64encode(result.data).decode(), mime_type=media_type))
        elif not output_path:
            blob = types.BlobResourceContents(
                uri=f"fileapi://{tool.name}/result",
                mime_type=media_type,
                blob=base64.b64encode(result.data).decode(),
            )
            content.append(types.EmbeddedResource(resource=blob))
    elif isinstance(result.data, str):
        if output_path:  # text of a tool whose output may be a file (an SVG QR code)
            path = Path(output_path).expanduser()
            path.write_text(result.data, encoding="utf-8")
            content.append(types.TextContent(text=f"Wrote {len(result.data)} characters ({media_type}) to {path}"))
        content.append(types.TextContent(text=result.data))
    else:
        structured = result.data
        content.append(types.TextContent(text=json.dumps(result.data, ensure_ascii=False, indent=2)))
    return types.CallToolResult(content=content, structured_content=structured, _meta=_meta(tool, result))


def error_result(code: str, message: str) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(text=f"{code}: {message}")],
        structured_content={"error": code, "message": message},
        is_error=True,
    )


async def run_pipeline(client: AsyncFileApi, tool: ToolSpec, arguments: dict[str, Any]) -> dict[str, Any]:
    """POST /v1/pipelines with local-path inputs uploaded first; the operation once it has ended (its stages, and
    its results as links). :raises ApiError: refused, or a stage failed."""
    unknown = set(arguments) - set(tool.input_schema["properties"])
    if unknown:
        raise ValueError(f"unknown argument(s): {', '.join(sorted(unknown))}")
    inputs = []
    for position, given in enumerate(arguments.get("inputs") or []):
        if "path" in given:
            path = Path(given["path"])
            media_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            upload = await client.upload_file(path, content_type=media_type, filename=path.name)
            inputs.append({"upload": upload})
        elif isinstance(given, dict):
            inputs.append(given)
        else:
            raise ValueError(f"inputs[{position}]: an object with path, upload or url is expected")
    body: dict[str, Any] = {"inputs": inputs}
    body.update({name: arguments[name] for name in ("stages", "output") if name in arguments})
    headers = client._headers({"Idempotency-Key": str(uuid.uuid4())})
    answer = (await client._send("POST", client.base_url + "/v1/pipelines", json=body, headers=headers)).json()
    return await client.wait_operation(str(answer["id"]))


def create_server(client: AsyncFileApi) -> Server[Any]:
    """The MCP server over `client` (the caller owns and closes it)."""
    tools = build_tools(load_spec())
    listed = [
        types.Tool(
            name=tool.name,
            title=tool.title,
            description=tool.description,
            input_schema=tool.input_schema,
            annotations=types.ToolAnnotations(
                title=tool.title, read_only_hint=tool.read_only, open_world_hint=False, idempotent_hint=tool.read_only
            ),
        )
        for tool in tools.values()
    ]

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        tool = tools.get(params.name)
        if tool is None:
            return error_result("unknown_tool", f"no tool named {params.name!r}")
        arguments = dict(params.arguments or {})
        try:
            if tool.name == RUN_PIPELINE:
                operation = await run_pipeline(client, tool, arguments)
                return types.CallToolResult(
                    content=[types.TextContent(type="text", text=json.dumps(operation))], structured_content=operation
                )
            call = sdk_arguments(tool, arguments)
            if call.uploads:  # an operation over uploads already made
                accepted = await client.submit_operation(tool.name, call.uploads, **call.arguments)
                result = await client.operation_result(await client.wait_operation(str(accepted["id"])))
            else:  # a local path over the synchronous limit is uploaded by the SDK
                result = await client._call(tool.name, call.arguments)
            return tool_result(tool, result, arguments.get(OUTPUT_PATH))
        except ApiError as error:
            return error_result(error.code, error.message)
        except OperationTimeout as error:
            return error_result("operation_timeout", str(error))
        except (ValueError, TypeError, OSError) as error:
            return error_result("invalid_arguments", str(error))

    return Server(
        "fileapi",
        version=__version__,
        title="File and Data Utility API",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve_stdio() -> None:
    async with AsyncFileApi() as client:
        server = create_server(client)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())


def serve_http(host: str, port: int) -> None:
    """Serve streamable HTTP on host:port (endpoint /mcp), saying on standard error where, once it listens."""
    import uvicorn

    async def main() -> None:
        async with AsyncFileApi() as client:
            app = create_server(client).streamable_http_app(host=host)
            server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning"))
            url = f"http://{host}:{port}/mcp"
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(_announce_when_listening, server, f"{url} (calling {client.base_url})")
                await server.serve()
                tasks.cancel_scope.cancel()

    anyio.run(main)


async def _announce_when_listening(server: Any, where: str) -> None:
    while not server.started:
        await anyio.sleep(0.02)
    print(f"fileapi-mcp: MCP over streamable HTTP on {where}; Ctrl-C stops it", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="fileapi-mcp", description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--http", action="store_true", help="serve streamable HTTP instead of stdio")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP host (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="HTTP port (default 8765); the endpoint is /mcp")
    args = parser.parse_args(argv)
    if args.http:
        serve_http(args.host, args.port)
    else:
        anyio.run(serve_stdio)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
