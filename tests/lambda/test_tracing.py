"""X-Ray tracing on the Lambda runtime: the invocation, the DynamoDB calls and the conversion are
traced and sent to the daemon address (a UDP socket here); no request or response content is.
Tracing off (POWERTOOLS_TRACE_DISABLED=true) sends nothing and imports no X-Ray SDK.

Each case runs in a child process: X-Ray patches botocore for the whole process."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

from fileapi.local.dynamo import LOCAL_CREDENTIALS
from fileapi.local.template import PROJECT_ROOT

SENTINEL = "SNTNLtrace42"
CHILD = f"""
import base64, json, sys
from fileapi.local.template import load_function_module, load_functions
from tests.helpers import LambdaContext, in_memory_metering

with in_memory_metering("trace@example.com") as key:
    spec = next(s for s in load_functions() if ("POST", "/v1/data/base64-encode") in s.routes)
    module = load_function_module(spec)
    event = json.load(open("events/data-base64-encode.json"))
    event["headers"]["authorization"] = "Bearer " + key
    event["body"] = base64.b64encode(b"{SENTINEL}").decode()
    event["isBase64Encoded"] = True
    response = module.handler(event, LambdaContext(function_name="fileapi-data", aws_request_id="req-trace"))
    print(json.dumps({{"status": response["statusCode"], "xray_imported": "aws_xray_sdk" in sys.modules}}))
"""


def run_child(*, tracing: bool) -> tuple[dict[str, object], list[dict[str, object]]]:
    listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    listener.bind(("127.0.0.1", 0))
    listener.settimeout(0.5)
    port = listener.getsockname()[1]
    env = {
        **os.environ,
        **LOCAL_CREDENTIALS,
        "AWS_LAMBDA_FUNCTION_NAME": "fileapi-data",
        "LAMBDA_TASK_ROOT": str(PROJECT_ROOT),
        "_X_AMZN_TRACE_ID": "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1",
        "AWS_XRAY_DAEMON_ADDRESS": f"127.0.0.1:{port}",
        "POWERTOOLS_TRACE_DISABLED": "false" if tracing else "true",
        "POWERTOOLS_SERVICE_NAME": "fileapi",
    }
    completed = subprocess.run(
        [sys.executable, "-c", CHILD], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    result = json.loads(completed.stdout.strip().splitlines()[-1])
    documents = []
    try:
        while True:
            datagram = listener.recv(65536).decode()
            assert SENTINEL not in datagram
            documents.append(json.loads(datagram.split("\n", 1)[1]))
    except TimeoutError:
        pass
    finally:
        listener.close()
    return result, documents


def names(documents: list[dict[str, object]]) -> set[str]:
    found: set[str] = set()
    pending = list(documents)
    while pending:
        document = pending.pop()
        found.add(str(document.get("name")))
        pending += document.get("subsegments", [])  # type: ignore[arg-type]
    return found


def test_tracing_on_traces_the_handler_dynamodb_and_the_conversion() -> None:
    result, documents = run_child(tracing=True)
    assert result == {"status": 200, "xray_imported": True}
    assert {"## traced", "## encode_base64", "dynamodb"} <= names(documents)
    assert all(document.get("trace_id") == "1-5759e988-bd862e3fe1be46a994272793" for document in documents)


def test_tracing_off_sends_nothing_and_imports_no_xray_sdk() -> None:
    result, documents = run_child(tracing=False)
    assert result == {"status": 200, "xray_imported": False}
    assert documents == []
