"""Every client operation of the OpenAPI document has exactly one Python method (sync and async),
one Node function and one MCP tool, with nothing extra; the generated code is current."""

from __future__ import annotations

import inspect
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fileapi_mcp.tools import PIPELINE_OPERATION, RUN_PIPELINE

from fileapi.catalogue.declaration import Reads
from fileapi.catalogue.registry import every

CLIENTS = Path(__file__).resolve().parent
sys.path.insert(0, str(CLIENTS))

import generate  # noqa: E402
from fileapi_client import AsyncFileApi, FileApi  # noqa: E402
from fileapi_client._generated import AsyncFileApiOperations, FileApiOperations  # noqa: E402
from fileapi_client._transfer import AsyncTransfer, Transfer  # noqa: E402
from fileapi_mcp.tools import build_tools  # noqa: E402
from fileapi_mcp.tools import load_spec as mcp_spec  # noqa: E402
from mcp_readme import END, MCP_README, START, mcp_readme, tools_sentence  # noqa: E402
from operations import load_spec, operations  # noqa: E402

SPEC = load_spec()
LARGE_FILE_STEPS = [
    "upload_file",
    "submit_operation",
    "wait_operation",
    "operation_result",
    "download",
    "cancel_operation",
]
LARGE_FILE_STEPS_NODE = [
    "uploadFile",
    "submitOperation",
    "waitOperation",
    "operationResult",
    "download",
    "cancelOperation",
]
OPERATIONS = operations(SPEC)
IDS = {operation.id for operation in OPERATIONS}
CONVERSIONS = len(every())  # the catalogue's


def _public_methods(cls: type) -> dict[str, object]:
    return {name: value for name, value in vars(cls).items() if not name.startswith("_") and callable(value)}


def test_the_document_has_the_client_operations() -> None:
    all_ids = [entry["operationId"] for methods in SPEC["paths"].values() for entry in methods.values()]
    assert len(all_ids) == len(set(all_ids))
    internal = set(all_ids) - IDS
    assert internal == {"webhooks_stripe"}  # called by the payment provider
    # /v1: the catalogue's conversions, usage and its chart, key rotation, billing portal, the 2 recovery steps, the
    # 6 of uploads, operations and webhooks, and pipelines; plus /health, /openapi.json and the error page.
    assert sum(operation.path.startswith("/v1/") for operation in OPERATIONS) == CONVERSIONS + 4 + 2 + 6 + 1
    assert len(IDS) == CONVERSIONS + 4 + 2 + 6 + 1 + 3


def test_generated_files_are_current() -> None:
    stale = [path for path, text in generate.outputs().items() if path.read_text(encoding="utf-8") != text]
    assert not stale, f"run `make clients`: stale {stale}"


@pytest.mark.parametrize("cls", [FileApiOperations, AsyncFileApiOperations])
def test_python_sdk_has_one_method_per_operation(cls: type) -> None:
    methods = _public_methods(cls)
    assert set(methods) == IDS
    for operation in OPERATIONS:
        method = methods[operation.id]
        assert inspect.iscoroutinefunction(method) == (cls is AsyncFileApiOperations)
        parameters = set(inspect.signature(method).parameters) - {"self"}  # type: ignore[arg-type]
        assert parameters == {generate.python_name(parameter.name) for parameter in operation.parameters}, operation.id
    assert set(_public_methods(FileApi)) == {"close", "pipeline"}
    assert set(_public_methods(AsyncFileApi)) == {"aclose"}
    for transfer in (Transfer, AsyncTransfer):
        assert set(_public_methods(transfer)) == set(LARGE_FILE_STEPS)


def test_mcp_server_has_one_tool_per_operation() -> None:
    assert mcp_spec() == SPEC
    assert set(build_tools(mcp_spec())) == {RUN_PIPELINE if name == PIPELINE_OPERATION else name for name in IDS}


def test_the_mcp_readme_gives_the_number_of_tools_the_server_lists() -> None:
    readme = MCP_README.read_text(encoding="utf-8")
    said = re.search(re.escape(START) + r"(\d+): the (\d+) conversions, (.*?)" + re.escape(END), readme)
    assert said is not None, readme[:400]
    assert int(said.group(1)) == len(build_tools(mcp_spec())) == len(IDS)
    assert said.group(3).count("`") // 2 == int(said.group(1)) - int(said.group(2)) == len(IDS) - CONVERSIONS


def test_a_stale_count_in_the_mcp_readme_is_rewritten() -> None:
    rewritten = mcp_readme(f"a tool ({START}46: the 39 conversions, `health`{END}), built", SPEC)
    assert rewritten == f"a tool ({START}{tools_sentence(SPEC)}{END}), built"
    assert tools_sentence(SPEC).startswith(f"{len(IDS)}: the {CONVERSIONS} conversions, `health`, `openapi_json`, ")
    with pytest.raises(ValueError, match="no <!-- tools"):
        mcp_readme("46 tools", SPEC)


def test_node_sdk_has_one_function_per_operation() -> None:
    node = shutil.which("node")
    dist = CLIENTS / "node" / "dist" / "index.js"
    if node is None or not dist.exists():
        pytest.skip("needs node and clients/node built (`make test` builds it)")
    script = (
        f"import('{dist.as_uri()}').then((m) => {{"
        "const p = m.FileApiOperations.prototype; const own = Object.getOwnPropertyNames(p)"
        ".filter((n) => n !== 'constructor' && typeof p[n] === 'function');"
        "const extra = Object.getOwnPropertyNames(m.FileApi.prototype).filter((n) => n !== 'constructor');"
        "console.log(JSON.stringify({own, extra, ops: Object.keys(m.OPERATIONS)}));})"
    )
    listed = json.loads(subprocess.run([node, "-e", script], capture_output=True, text=True, check=True).stdout)
    assert sorted(listed["own"]) == sorted(operation.camel for operation in OPERATIONS)
    # Beyond the operations: the large-file steps (as the Python clients' Transfer has them) and the pipeline
    # builder with its two steps.
    pipeline = ["pipeline", "submitPipeline", "downloadChecked"]
    assert sorted(listed["extra"]) == sorted([*LARGE_FILE_STEPS_NODE, *pipeline, "sendOtherwise", "transport"])
    assert set(listed["ops"]) == IDS


def test_the_clients_send_raw_bodies_where_a_form_is_only_an_alternative() -> None:
    # Every bytes-in route also takes its file as multipart/form-data (in the x-also-multipart extension);
    # the clients keep the raw body: only the conversions that take several files (pdf/merge, pdf/from-images),
    # whose one declared body is a form, are sent as forms.
    forms = [
        path
        for path, methods in SPEC["paths"].items()
        for entry in methods.values()
        if "multipart/form-data" in entry.get("requestBody", {}).get("x-also-multipart", {})
    ]
    assert len(forms) > 30
    sent_as_forms = {operation.path for operation in OPERATIONS if operation.body == "multipart"}
    assert sent_as_forms == {c.path for c in every() if c.takes.reads is Reads.FILES}


def test_both_sdks_take_files_as_bytes_paths_file_objects_and_streams(tmp_path: Path) -> None:
    # GIVEN one file's bytes in every form a user holds them in
    from fileapi_client._core import read_file

    data = bytes(range(256)) * 4
    path = tmp_path / "input.bin"
    path.write_bytes(data)
    forms = {
        "bytes": data,
        "bytearray": bytearray(data),
        "path": str(path),
        "Path": path,
        "file object": path.open("rb"),
        "stream of chunks": (data[index : index + 100] for index in range(0, len(data), 100)),
    }
    # THEN the Python SDK reads each as the same bytes
    for form, value in forms.items():
        assert read_file(value, "file") == data, form
    # AND the Node SDK's FileInput names the same forms (a path, bytes, a Blob and a stream of chunks)
    core = (CLIENTS / "node" / "src" / "core.ts").read_text(encoding="utf-8")
    declared = next(line for line in core.splitlines() if line.startswith("export type FileInput"))
    for form in ("Uint8Array", "ArrayBuffer", "Blob", "string", "URL", "ReadableStream<Uint8Array>", "AsyncIterable"):
        assert form in declared, form
