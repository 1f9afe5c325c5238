"""The response limit is Lambda's, measured as Lambda serialises a response, locally and deployed alike."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient

from fileapi.local.template import PROJECT_ROOT, load_function_module, load_functions, load_template
from fileapi.metering.storage import Stores
from fileapi.services import stores_installed
from fileapi.setting_variables import DEFAULT_MAX_RESPONSE_BYTES
from fileapi.settings import get_settings
from tests.helpers import LambdaContext, auth

LAMBDA_LIMIT = 6_291_556  # "Exceeded maximum allowed payload size (6291556 bytes)", Lambda's RequestEntityTooLarge
EVENT = json.loads((PROJECT_ROOT / "events" / "data-url-encode.json").read_text(encoding="utf-8"))


@pytest.fixture(autouse=True)
def _stores(stores: Stores) -> Any:
    with stores_installed(stores):
        yield


def invoke_url_encode(text: str, key: str) -> dict[str, Any]:
    spec = next(spec for spec in load_functions() if ("POST", "/v1/data/url-encode") in spec.routes)
    event = {**EVENT, "body": text, "headers": {**EVENT["headers"], "authorization": f"Bearer {key}"}}
    event["headers"]["content-length"] = str(len(text.encode()))
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        result: dict[str, Any] = load_function_module(spec).handler(event, LambdaContext(str(uuid.uuid4())))
    finally:
        asyncio.set_event_loop(None)
        loop.close()
    return result


def serialised(result: dict[str, Any]) -> int:
    """What the Python runtime posts back to Lambda (json.dumps of the handler's result)."""
    return len(json.dumps(result))


def test_the_default_limit_is_lambdas_and_the_template_sets_no_other_but_for_operations() -> None:
    assert get_settings().max_response_bytes == DEFAULT_MAX_RESPONSE_BYTES == LAMBDA_LIMIT
    template = load_template()
    limits = {"FILEAPI_MAX_RESPONSE_BYTES", "FILEAPI_MAX_BODY_BYTES", "FILEAPI_DEADLINE_SECONDS"}
    assert not limits & set(template["Globals"]["Function"]["Environment"]["Variables"])
    # One source, settings.py, for the local server and the HTTP functions alike; the Operations function answers
    # no synchronous call, and its conversions have minutes.
    set_by = {
        name: sorted(limits & set(resource["Properties"].get("Environment", {}).get("Variables", {})))
        for name, resource in template["Resources"].items()
        if resource["Type"] == "AWS::Serverless::Function"
    }
    assert {name: found for name, found in set_by.items() if found} == {
        "OperationsFunction": ["FILEAPI_DEADLINE_SECONDS", "FILEAPI_MAX_RESPONSE_BYTES"]
    }


def test_responses_at_lambdas_limit_get_the_same_answer_locally_and_in_lambda(api: TestClient, key: str) -> None:
    # GIVEN url-encode, whose answer is 6 characters per "é": its size is a straight line in the input
    small = invoke_url_encode("é" * 1000, key)
    overhead = serialised(small) - 6 * 1000
    fits = (LAMBDA_LIMIT - overhead - 600) // 6  # 600 bytes under: the header allowance and digit counts
    over = (LAMBDA_LIMIT - overhead) // 6 + 10
    for count, status in ((fits, 200), (over, 413)):
        # WHEN the same text goes to the Lambda handler and to the local server
        result = invoke_url_encode("é" * count, key)
        local = api.post(
            "/v1/data/url-encode",
            content=("é" * count).encode(),
            headers={**auth(key), "Content-Type": "text/plain; charset=utf-8"},
        )
        # THEN both give the same status, and what Lambda would post back fits its limit
        assert (result["statusCode"], local.status_code) == (status, status)
        assert serialised(result) <= LAMBDA_LIMIT
        if status == 413:
            assert json.loads(result["body"])["error"] == local.json()["error"] == "too_large"


def test_non_ascii_text_counts_as_the_runtime_escapes_it(api: TestClient, key: str) -> None:
    # GIVEN a JSON document of 3.6 MB of UTF-8 text, whose formatted answer Lambda carries as \\uXXXX escapes
    document = json.dumps({"text": "漢字かな" * 300_000}, ensure_ascii=False).encode()
    assert len(document) < 4_500_000
    response = api.post("/v1/data/json-format", content=document, headers=auth(key))
    # THEN the answer is 413 (3.6 MB of UTF-8 is 7.2 MB escaped), not a body Lambda could never return
    assert response.status_code == 413
    assert "JSON-escaped" in response.json()["message"]
