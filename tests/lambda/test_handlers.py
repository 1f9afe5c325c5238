"""Each function's Lambda `handler` invoked with the API Gateway v2 sample events of events/."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from fileapi.catalogue.declaration import Conversion, Shape
from fileapi.catalogue.registry import by_path
from fileapi.file_services import FileServices
from fileapi.local.template import PROJECT_ROOT, FunctionSpec, load_function_module, load_functions
from fileapi.metering.meter import Meter
from fileapi.metering.plans import CONTRACT_PLANS
from fileapi.metering.storage import Stores
from fileapi.services import stores_installed
from fileapi.web import usage_page
from fileapi.web.docs_page import ASSETS, CONTENT_SECURITY_POLICY, PAGE_PATH, REDIRECTS, asset_bytes
from tests.conftest import MakeKey
from tests.helpers import LambdaContext
from tests.stripe_events import signed

EVENTS = sorted((PROJECT_ROOT / "events").glob("*.json"))
FUNCTIONS = load_functions()
# Answered for the key's account and never counted.
SELF_SERVICE = {
    "GET /v1/usage",
    "GET /v1/usage/chart",
    "POST /v1/keys/rotate",
    "POST /v1/uploads",
    "GET /v1/operations/{operation_id}",
    "POST /v1/webhooks",
    "GET /v1/webhooks",
}
# The Files function's routes: served over a bucket and queues of the test's own (the `files` fixture).
FILE_ROUTES = {
    "POST /v1/uploads": 201,
    "GET /v1/operations/{operation_id}": 200,
    "DELETE /v1/operations/{operation_id}": 204,
    "POST /v1/webhooks": 201,
    "GET /v1/webhooks": 200,
    "DELETE /v1/webhooks/{webhook_id}": 204,
    "POST /v1/pipelines": 202,
}
EXPECTED_BODIES: dict[str, bytes] = {
    "GET /health": b"ok",
    "POST /v1/data/base64-encode": base64.b64encode(b"\x00\xffhello\r\n"),
    "POST /v1/data/base64-decode": b"\x00\xffhello\r\n",
    "POST /v1/data/url-encode": b"a%20b%26c%3D%C3%BC",
    "POST /v1/data/url-decode": "a b&c=ü".encode(),
    "POST /v1/data/json-format": b'{\n  "b": 1,\n  "a": [\n    true,\n    null\n  ]\n}\n',
    "POST /v1/data/json-minify": b'{"a":[1,2]}',
    "POST /v1/data/csv-to-json": b'[{"a":"1","b":"x,y"}]',
    "POST /v1/data/json-to-csv": b"a,b,c\r\n1,x,\r\n,,true\r\n",
    "POST /v1/file/hash": b'{"algorithm":"sha256",'
    b'"hex":"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",'
    b'"base64":"LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=","bytes":5}',
    "POST /v1/file/detect": b'{"mime":"image/png","extension":"png","description":"PNG image"}',
    "POST /v1/text/word-count": b'{"words":5,"characters":25,"charactersNoSpaces":21,"sentences":2,"paragraphs":1,'
    b'"lines":1,"readingTimeMinutes":0.02}',
    "POST /v1/text/diff": b'{"identical":false,"added":1,"removed":1,'
    b'"unified":"--- a\\n+++ b\\n@@ -1,2 +1,2 @@\\n one\\n-two\\n+three\\n",'
    b'"hunks":[{"oldStart":1,"oldLines":2,"newStart":1,"newLines":2,"lines":[{"type":"context",'
    b'"text":"one"},{"type":"removed","text":"two"},{"type":"added","text":"three"}]}]}',
    "POST /v1/text/markdown-to-html": b'<h1>Title</h1>\n<ul>\n<li><input type="checkbox" checked="" disabled="" /> done'
    b"</li>\n</ul>\n",
    "POST /v1/qr/read": b'{"text":"https://example.com","format":"qr_code"}',
    "POST /v1/barcode/read": b'{"codes":[{"text":"https://example.com","format":"qr_code"}]}',
    "POST /v1/color/convert": b'{"hex":"#663399","rgb":{"r":102,"g":51,"b":153},"hsl":{"h":270.0,"s":50.0,"l":40.0},'
    b'"hsv":{"h":270.0,"s":66.7,"v":60.0},"cmyk":{"c":33.3,"m":66.7,"y":0.0,"k":40.0}}',
}


def function_for(route_key: str) -> FunctionSpec:
    method, path = route_key.split(" ", 1)
    return next(spec for spec in FUNCTIONS if (method, path) in spec.routes)


def invoke(event: dict[str, Any]) -> dict[str, Any]:
    module = load_function_module(function_for(event["routeKey"]))
    response: dict[str, Any] = module.handler(event, LambdaContext(aws_request_id=str(uuid.uuid4())))
    return response


def body_of(response: dict[str, Any]) -> bytes:
    body = response.get("body", "")
    return base64.b64decode(body) if response.get("isBase64Encoded") else body.encode()


@pytest.fixture(autouse=True)
def _stores(stores: Stores) -> Any:
    with stores_installed(stores):
        yield


@pytest.fixture(autouse=True)
def _event_loop() -> Any:
    """A current event loop for Mangum, as a fresh Lambda process has: a test that ran asyncio.run()
    earlier in this worker leaves the main thread without one."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    yield
    asyncio.set_event_loop(None)
    loop.close()


def test_every_template_route_has_one_sample_event() -> None:
    template_routes = {f"{method} {path}" for spec in FUNCTIONS for method, path in spec.routes}
    event_routes = [json.loads(path.read_text())["routeKey"] for path in EVENTS]
    assert sorted(event_routes) == sorted(template_routes)


def with_file_resources(event: dict[str, Any], key: str, files: FileServices, meter: Meter) -> None:
    """The sample event of a Files route, made to name what the key's account has: an operation, a webhook, a
    loopback webhook URL (the example's host may not resolve here)."""
    route = event["routeKey"]
    if route.endswith("{operation_id}"):
        admission = meter.admit(f"Bearer {key}", counted=True, request_id=f"req-{uuid.uuid4().hex}")
        kept = files.operations.submit(
            admission, route="/v1/data/base64-encode", query="", bodies=[(b"hi", "text/plain")]
        )
        found = kept.id
    elif route.endswith("{webhook_id}"):
        admission = meter.admit(f"Bearer {key}", counted=False, request_id=f"req-{uuid.uuid4().hex}")
        found = files.webhooks.register(admission.account_id, "http://127.0.0.1:9/hooks").id
    else:
        if route == "POST /v1/webhooks":
            event["body"] = json.dumps({"url": "http://127.0.0.1:9/hooks"})
        return
    (name,) = event["pathParameters"]
    event["rawPath"] = event["rawPath"].replace(event["pathParameters"][name], found)
    event["requestContext"]["http"]["path"] = event["rawPath"]
    event["pathParameters"][name] = found


@pytest.mark.parametrize("event_path", EVENTS, ids=[path.stem for path in EVENTS])
def test_handler_answers_its_sample_event(
    event_path: Path, make_key: MakeKey, meter: Meter, request: pytest.FixtureRequest
) -> None:
    event = json.loads(event_path.read_text())
    if "authorization" in event["headers"]:
        event["headers"]["authorization"] = f"Bearer {make_key(plan='pro')}"
    if event["routeKey"] in FILE_ROUTES:
        key = event["headers"]["authorization"].removeprefix("Bearer ")
        with_file_resources(event, key, request.getfixturevalue("files"), meter)
    if "stripe-signature" in event["headers"]:  # Stripe signs with the time: sign the sample now
        payload = json.loads(event["body"])
        payload["id"] = f"evt_{uuid.uuid4().hex}"
        payload["data"]["object"]["customer_details"]["email"] = f"{uuid.uuid4().hex[:8]}@example.com"
        event["body"], event["headers"]["stripe-signature"] = (
            part.decode() if isinstance(part, bytes) else part for part in signed(payload)
        )
    response = invoke(event)
    if event["routeKey"] == "GET /v1/billing/portal":  # billing is not configured in the tests
        assert response["statusCode"] == 503
        assert json.loads(body_of(response))["message"].startswith("billing is not configured")
        return
    if event["routeKey"] == "POST /v1/keys/recover/confirm":  # the sample code was never issued
        assert response["statusCode"] == 400
        assert json.loads(body_of(response))["message"] == "the code is wrong, expired or already used"
        return
    if event["rawPath"] in REDIRECTS:  # /docs/, /redoc and / lead to the interactive reference
        assert (response["statusCode"], response["headers"]["location"]) == (REDIRECTS[event["rawPath"]], PAGE_PATH)
        return
    assert response["statusCode"] == FILE_ROUTES.get(event["routeKey"], 200), body_of(response)
    headers = {name.lower(): value for name, value in response["headers"].items()}
    if event["routeKey"].startswith(("POST /v1/", "GET /v1/")) and "/v1/keys/recover" not in event["routeKey"]:
        # The key is new: its first request, or the operation it reads (which holds its unit).
        counted = event["routeKey"] not in SELF_SERVICE or event["routeKey"].endswith("{operation_id}")
        assert int(headers["x-quota-remaining"]) == CONTRACT_PLANS["pro"].quota_monthly - counted
        assert headers["ratelimit-limit"] == str(CONTRACT_PLANS["pro"].burst)
    expected = EXPECTED_BODIES.get(event["routeKey"])
    declared = by_path().get(event["rawPath"]) if event["routeKey"].startswith("POST ") else None
    if declared is not None and declared.name.rsplit("/", 1)[1] not in CHECKED_BY_NAME:
        assert_as_declared(declared, headers, body_of(response))
    elif event["routeKey"].startswith("POST /v1/image/"):
        assert_image_response(event["routeKey"], headers, body_of(response))
    elif expected is not None:
        assert body_of(response) == expected
    elif event["routeKey"].startswith("POST /v1/pdf/"):
        assert_pdf_response(event["routeKey"].rsplit("/", 1)[1], headers, body_of(response))
    elif event["routeKey"] == "POST /webhooks/stripe":
        assert json.loads(body_of(response)) == {"received": True}
    elif event["routeKey"] == "POST /v1/keys/rotate":
        assert json.loads(body_of(response))["api_key"].startswith("sk_live_")
    elif event["routeKey"] == "POST /v1/keys/recover":
        assert set(json.loads(body_of(response))) == {"message"}
    elif event["routeKey"] == "POST /v1/render/svg-to-png":
        from PIL import Image

        assert headers["content-type"] == "image/png"
        assert Image.open(io.BytesIO(body_of(response))).size == (80, 40)
    elif event["routeKey"] in ("POST /v1/qr/generate", "POST /v1/barcode/generate"):
        assert headers["content-type"] == "image/svg+xml"
        assert body_of(response).startswith(b"<?xml")
    elif event["routeKey"] == "GET /openapi.json":
        assert json.loads(body_of(response))["openapi"].startswith("3.")
    elif event["rawPath"] in ASSETS:  # the page's files, passed through as text (not base64)
        assert (response["isBase64Encoded"], body_of(response)) == (False, asset_bytes(event["rawPath"]))
        assert headers["content-type"] == ASSETS[event["rawPath"]].media_type
    elif event["rawPath"] == PAGE_PATH:
        assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        assert b'<div id="swagger-ui">' in body_of(response)
    elif event["rawPath"] in usage_page.ASSETS:
        assert (response["isBase64Encoded"], body_of(response)) == (
            False,
            usage_page.PAGE.asset_bytes(event["rawPath"]),
        )
        assert headers["content-type"] == usage_page.ASSETS[event["rawPath"]].media_type
    elif event["rawPath"] == usage_page.PAGE_PATH:
        assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        assert b'<form id="key-form"' in body_of(response)
    elif event["routeKey"] == "GET /v1/usage/chart":
        assert headers["content-type"] == "image/svg+xml"
        assert body_of(response).startswith(b'<svg xmlns="http://www.w3.org/2000/svg"')
    elif event["routeKey"] == "GET /docs/errors":
        assert headers["content-type"].startswith("text/html")
        assert b'<h2 id="rate_limited">' in body_of(response)
    elif event["routeKey"] in FILE_ROUTES:
        assert_file_response(event["routeKey"], body_of(response))
    else:
        assert json.loads(body_of(response))["plan"] == "pro"


def assert_file_response(route_key: str, body: bytes) -> None:
    if route_key.startswith("DELETE "):
        assert body == b""
        return
    answer = json.loads(body)
    if route_key == "POST /v1/uploads":
        assert answer["id"].startswith("upl_") and answer["fields"]["Content-Type"] == "application/pdf"
    elif route_key == "POST /v1/webhooks":
        assert answer["secret"].startswith("whsec_")
    elif route_key == "GET /v1/webhooks":
        assert answer == {"webhooks": []}
    elif route_key == "POST /v1/pipelines":
        assert (answer["status"], answer["route"]) == ("running", "/v1/pipelines")
    else:
        assert (answer["status"], answer["route"]) == ("running", "/v1/data/base64-encode")


IMAGE_RESULTS = {
    "convert": ("image/webp", (8, 6)),
    "resize": ("image/png", (4, 4)),
    "compress": ("image/png", (8, 6)),
    "strip-metadata": ("image/png", (8, 6)),
    "crop": ("image/png", (4, 3)),
    "rotate": ("image/png", (6, 8)),
    "flip": ("image/png", (8, 6)),
}


# The conversions whose sample answers are checked by name below; every other is checked as it is declared.
CHECKED_BY_NAME = frozenset(
    {"read-metadata", "favicon-set", *IMAGE_RESULTS}
    | {"merge", "rotate", "watermark", "flatten", "protect", "fill-form", "compress", "info", "extract-text"}
    | {"render-page", "split", "svg-to-png", "generate", "read", "hash", "detect", "word-count", "diff"}
    | {"markdown-to-html", "convert", "base64-encode", "base64-decode", "url-encode", "url-decode"}
    | {"json-format", "json-minify", "csv-to-json", "json-to-csv"}
)


def assert_as_declared(conversion: Conversion, headers: dict[str, str], body: bytes) -> None:
    """The answer is what the declaration gives: its model's JSON, or a file of one of its media types."""
    gives = conversion.gives
    media_type = headers["content-type"].partition(";")[0]
    if gives.shape in (Shape.JSON, Shape.JSON_FILES):
        assert gives.model is not None and gives.model.model_validate(json.loads(body))
        return
    assert body and (not gives.media_types or media_type in gives.media_types), (conversion.path, media_type)


def assert_image_response(route_key: str, headers: dict[str, str], body: bytes) -> None:
    from PIL import Image

    name = route_key.rsplit("/", 1)[1]
    if name == "read-metadata":
        assert json.loads(body)["width"] == 8
        return
    if name == "favicon-set":
        assert set(json.loads(body)) == {"ico", "pngs", "manifest"}
        return
    media_type, size = IMAGE_RESULTS[name]
    assert headers["content-type"] == media_type
    assert Image.open(io.BytesIO(body)).size == size


def assert_pdf_response(name: str, headers: dict[str, str], body: bytes) -> None:
    if name in ("merge", "rotate", "watermark", "flatten", "protect", "fill-form"):
        assert headers["content-type"] == "application/pdf"
        assert body.startswith(b"%PDF-")
        return
    result = json.loads(body)
    if name == "compress":
        assert result["originalSize"] >= result["compressedSize"] > 0
        return
    if name == "info":
        assert (result["pageCount"], result["metadata"]) == (2, {"title": "Sample"})
    elif name == "extract-text":
        assert result["pages"][0].strip() == "Hello page one"
    elif name == "render-page":
        assert (result["pages"][0]["width"], result["pages"][0]["height"]) == (612, 792)
    else:
        assert len(result["pdfs"]) == 2


def test_binary_response_is_base64_encoded_for_api_gateway(make_key: MakeKey) -> None:
    event = json.loads((PROJECT_ROOT / "events" / "data-base64-decode.json").read_text())
    event["headers"]["authorization"] = f"Bearer {make_key()}"
    response = invoke(event)
    assert response["isBase64Encoded"] is True
    assert base64.b64decode(response["body"]) == b"\x00\xffhello\r\n"


def test_handler_without_key_answers_401_json(make_key: MakeKey) -> None:
    event = json.loads((PROJECT_ROOT / "events" / "data-json-minify.json").read_text())
    del event["headers"]["authorization"]
    response = invoke(event)
    assert response["statusCode"] == 401
    assert json.loads(body_of(response))["error"] == "unauthorized"


def test_handler_uses_the_lambda_request_id(make_key: MakeKey) -> None:
    event = json.loads((PROJECT_ROOT / "events" / "health.json").read_text())
    module = load_function_module(function_for(event["routeKey"]))
    response = module.handler(event, LambdaContext(aws_request_id="req-123"))
    assert response["headers"]["x-request-id"] == "req-123"


def test_lambda_log_records_carry_the_context_and_correlation_id(log_output: io.StringIO) -> None:
    event = json.loads((PROJECT_ROOT / "events" / "health.json").read_text())
    invoke(event)
    record = json.loads(log_output.getvalue().splitlines()[-1])
    assert record["message"] == "request"
    assert record["correlation_id"] == event["requestContext"]["requestId"]
    assert record["function_name"] == "test"
    assert "cold_start" in record


def test_a_form_file_through_api_gateway_is_answered_as_its_raw_body(make_key: MakeKey) -> None:
    # API Gateway passes a multipart body base64-encoded, as any binary body
    raw = json.loads((PROJECT_ROOT / "events" / "file-hash.json").read_text())
    data = base64.b64decode(raw["body"]) if raw.get("isBase64Encoded") else raw["body"].encode()
    form = (
        b'--b0undary\r\nContent-Disposition: form-data; name="file"; filename="hello.txt"\r\n'
        b"Content-Type: text/plain\r\n\r\n" + data + b"\r\n--b0undary\r\n"
        b'Content-Disposition: form-data; name="algorithm"\r\n\r\nsha256\r\n--b0undary--\r\n'
    )
    event = {**raw, "body": base64.b64encode(form).decode(), "isBase64Encoded": True, "rawQueryString": ""}
    event.pop("queryStringParameters", None)  # the option is a form field here
    event["headers"] = {
        **raw["headers"],
        "authorization": f"Bearer {make_key()}",
        "content-type": "multipart/form-data; boundary=b0undary",
        "content-length": str(len(form)),
    }
    response = invoke(event)
    assert response["statusCode"] == 200, body_of(response)
    assert body_of(response) == EXPECTED_BODIES["POST /v1/file/hash"]


def test_json_labelled_as_a_form_through_api_gateway_is_parsed(make_key: MakeKey) -> None:
    event = json.loads((PROJECT_ROOT / "events" / "color-convert.json").read_text())
    event["headers"] = {
        **event["headers"],
        "authorization": f"Bearer {make_key()}",
        "content-type": "application/x-www-form-urlencoded",
    }
    response = invoke(event)
    assert response["statusCode"] == 200, body_of(response)
    assert body_of(response) == EXPECTED_BODIES["POST /v1/color/convert"]


@pytest.fixture()
def thread_hops(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each call handed to the thread pool by the request path (admission, refunds, in-process work)."""
    from starlette.concurrency import run_in_threadpool

    from fileapi.web import invocation

    hops: list[str] = []

    async def counted(function: Any, *args: Any, **kwargs: Any) -> Any:
        hops.append(getattr(function, "__name__", "?"))
        return await run_in_threadpool(function, *args, **kwargs)

    monkeypatch.setattr(invocation, "run_in_threadpool", counted)
    return hops


@pytest.mark.parametrize(
    ("event_name", "isolated"),
    [("data-base64-encode", False), ("file-hash", False), ("color-convert", False), ("image-resize", True),
     ("text-markdown-to-html", True), ("text-diff", True)],
)  # fmt: skip
def test_an_invocation_hops_to_no_thread_and_isolated_work_runs_in_a_worker_process(
    event_name: str, isolated: bool, make_key: MakeKey, thread_hops: list[str], api: TestClient
) -> None:
    from fileapi.services import get_workers

    workers = get_workers()
    event = json.loads((PROJECT_ROOT / "events" / f"{event_name}.json").read_text())
    key = make_key()
    event["headers"]["authorization"] = f"Bearer {key}"
    jobs = workers.jobs
    assert invoke(event)["statusCode"] == 200
    assert (thread_hops, workers.jobs - jobs) == ([], 1 if isolated else 0)
    # The local server answers many requests at once: the store's write, and in-process work, leave the loop.
    body = base64.b64decode(event["body"]) if event.get("isBase64Encoded") else event["body"].encode()
    path = event["rawPath"] + (f"?{event['rawQueryString']}" if event.get("rawQueryString") else "")
    headers = {"Authorization": f"Bearer {key}", "Content-Type": event["headers"].get("content-type", "")}
    assert api.post(path, content=body, headers=headers).status_code == 200
    assert thread_hops == (["_admit"] if isolated else ["_admit", "_limited"])
    assert workers.jobs - jobs == (2 if isolated else 0)
