"""The MCP README's count of tools, written from the document (one tool per client operation).

The README holds the sentence between two HTML comments; `generate.py` rewrites it with the other generated
files, and the parity test fails when it is stale or when the server lists another number of tools.
"""

from __future__ import annotations

import re
from typing import Any

from operations import ROOT, operations

MCP_README = ROOT / "clients" / "mcp" / "README.md"
START, END = "<!-- tools: written by clients/generate.py -->", "<!-- /tools -->"
# Operations that convert nothing: the account's, the probes' and the files' (uploads, operations, webhooks), by
# their tags in the document.
SERVICE_TAGS = ("Account", "Probe", "Files")


def tools_sentence(spec: dict[str, Any]) -> str:
    """`47: the 39 conversions and usage, ...`: how many tools, and the ones that are not conversions.

    :param spec: the OpenAPI document.
    """
    tags = {entry["operationId"]: entry["tags"][0] for item in spec["paths"].values() for entry in item.values()}
    from fileapi_mcp.tools import PIPELINE_OPERATION, RUN_PIPELINE

    tags[RUN_PIPELINE] = tags[PIPELINE_OPERATION]
    tools = [RUN_PIPELINE if operation.id == PIPELINE_OPERATION else operation.id for operation in operations(spec)]
    services = [name for name in tools if tags[name] in SERVICE_TAGS]
    named = ", ".join(f"`{name}`" for name in services[:-1]) + f" and `{services[-1]}`"
    return f"{len(tools)}: the {len(tools) - len(services)} conversions, {named}"


def mcp_readme(text: str, spec: dict[str, Any]) -> str:
    """`text` (the README) with the sentence between its markers written from `spec`.

    :raises ValueError: the README lacks the markers.
    """
    pattern = re.compile(re.escape(START) + ".*?" + re.escape(END), re.DOTALL)
    if not pattern.search(text):
        raise ValueError(f"{MCP_README}: no {START} ... {END} to write the count of tools into")
    return pattern.sub(lambda _: START + tools_sentence(spec) + END, text, count=1)
