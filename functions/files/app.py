"""Files function: uploads, operations and webhooks (self-service: authenticated, rate-limited, never counted), and
pipelines (metered: one request per stage)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Depends, Path, Request
from starlette.responses import Response

from fileapi.metering.meter import Admission
from fileapi.models.files import (
    OperationResult,
    UploadRequest,
    UploadResult,
    WebhookList,
    WebhookRequest,
    WebhookResult,
    iso_seconds,
)
from fileapi.models.pipelines import PipelineRequest
from fileapi.services import get_meter
from fileapi.web.app import create_app, lambda_handler
from fileapi.web.docs import (
    IDEMPOTENCY_KEY_PARAMETER,
    METERING_HEADERS,
    OPERATION_ID,
    POLLED_HEADERS,
    PREFER_WAIT_PARAMETER,
    error_responses,
    named,
)
from fileapi.web.invocation import off_the_loop
from fileapi.web.metering import MeteredRoute, SelfServiceRoute, metered, self_service
from fileapi.web.routes import Routes, answers_json, json_response

if TYPE_CHECKING:  # the stores come with botocore, on first use (fileapi.cold_imports)
    from fileapi.file_services import FileServices
    from fileapi.webhooks.store import Webhook

router = APIRouter(tags=["Files"])
STATUSES = (400, 401, 403, 404, 429, 500, 503)
files = Routes(router, statuses=STATUSES, served_by=SelfServiceRoute)
OperationId = Annotated[str, Path(max_length=64, description="The operation's id (op_...).")]
WebhookId = Annotated[str, Path(max_length=64, description="The webhook's id (wh_...).")]
NO_CONTENT = {
    "status_code": 204,
    "responses": {204: {"description": "Done", "headers": METERING_HEADERS}, **error_responses(STATUSES)},
}


def get_file_services() -> FileServices:
    """The process's upload, operation and webhook services (imported on first use)."""
    from fileapi.services import get_file_services as services

    return services()


def _answers_created(model: type[UploadResult | WebhookResult], description: str) -> dict[str, Any]:
    """Decorator arguments of a route answering 201 Created with `model` (its errors: the route's statuses)."""
    success: dict[str, Any] = {"description": description, "headers": METERING_HEADERS}
    return {"response_model": model, "status_code": 201, "responses": {201: success}}


def _created(model: UploadResult | WebhookResult) -> Response:
    response = json_response(model)
    response.status_code = 201
    return response


@files.post(
    "/v1/uploads",
    "Start an upload of a large file",
    _answers_created(UploadResult, "The presigned POST"),
    statuses=(*STATUSES, 413),  # a size over the plan's upload limit
    **named("uploads_create"),
)
async def create_upload(payload: UploadRequest, admission: Annotated[Admission, Depends(self_service)]) -> Response:
    """JSON {filename, contentType, size}. Answers 201 with a presigned POST: send the file as
    multipart/form-data to `url`, with every field of `fields` first and the file last as the part named `file`
    (curl: one -F per field, then -F file=@scan.pdf). The POST is accepted until expiresAt; the file must be at
    most maxBytes, the plan's upload limit (a size over it is 413 here). Then name the upload on a file endpoint
    with ?upload=<id>: the answer is 202 and an operation. The file and the upload expire after 24 hours, and
    are deleted with the operation that used them. Not counted."""
    services = get_file_services()
    upload, post = await off_the_loop(
        services.uploads.create,
        admission.account_id,
        admission.state.plan,
        filename=payload.filename,
        content_type=payload.content_type,
        size=payload.size,
    )
    return _created(
        UploadResult(
            id=upload.id,
            url=post.url,
            fields=post.fields,
            expires_at=iso_seconds(post.expires_at),
            max_bytes=upload.max_bytes,
        )
    )


POLLED = answers_json(OperationResult)
POLLED["responses"][200]["headers"] = POLLED_HEADERS  # while it runs: Retry-After, seconds until the next GET


@files.get("/v1/operations/{operation_id}", "An operation's state and result", POLLED, **named("operations_get"))
async def get_operation(operation_id: OperationId, admission: Annotated[Admission, Depends(self_service)]) -> Response:
    """status running, succeeded, failed or cancelled. Succeeded: `result` (one file) or `results` (several,
    e.g. split), each with a presigned GET `url` valid 24 hours (a new link on every GET), contentType, size and
    sha256; `details` holds the endpoint's other fields (e.g. compress's sizes). Failed: `error` {code, message}
    as the synchronous endpoint would have answered it; a failed or cancelled operation is not counted. While
    running, poll after Retry-After seconds. Another account's operation is 404. Not counted."""
    services = get_file_services()
    operation = await off_the_loop(services.operations.owned, operation_id, admission.account_id)
    response = json_response(await off_the_loop(services.operations.view, operation))
    if not operation.ended:
        response.headers["Retry-After"] = "2"
    return response


@files.route(
    "DELETE",
    "/v1/operations/{operation_id}",
    "Cancel or delete an operation",
    NO_CONTENT,
    **named("operations_delete"),
)
async def delete_operation(
    operation_id: OperationId, admission: Annotated[Admission, Depends(self_service)]
) -> Response:
    """A running operation is cancelled (not counted; GET shows it as cancelled until it expires); an ended one
    is deleted with its result files and its uploads (GET is then 404). Answers 204. Not counted."""
    services = get_file_services()
    operation = await off_the_loop(services.operations.owned, operation_id, admission.account_id)
    await off_the_loop(services.operations.cancel_or_delete, operation, get_meter())
    return Response(status_code=204)


def _webhook(webhook: Webhook, *, with_secret: bool = False) -> WebhookResult:
    result = WebhookResult(id=webhook.id, url=webhook.url, created_at=iso_seconds(webhook.created_at))
    if with_secret:
        result.secret = webhook.secret
    return result


@files.post(
    "/v1/webhooks",
    "Register a webhook endpoint",
    _answers_created(WebhookResult, "The endpoint, with its secret"),
    **named("webhooks_create"),
)
async def create_webhook(payload: WebhookRequest, admission: Annotated[Admission, Depends(self_service)]) -> Response:
    """JSON {url}: a public HTTPS URL (checked after DNS resolution: private, loopback and link-local addresses
    are 400). Answers 201 with the endpoint and its secret (whsec_..., shown once). When an operation of the
    account ends, the endpoint receives {type: operation.succeeded|operation.failed|operation.cancelled,
    timestamp, data: the operation}, signed per Standard Webhooks (webhook-id, webhook-timestamp,
    webhook-signature; verify with the standardwebhooks library). A delivery not answered 2xx within 15 s is
    retried, 8 attempts over 27.6 hours; webhook-id is the same on every attempt. At most 10 per account."""
    services = get_file_services()
    webhook = await off_the_loop(services.webhooks.register, admission.account_id, payload.url)
    return _created(_webhook(webhook, with_secret=True))


# A pipeline is metered (a unit per stage): a router of metered routes of its own.
pipelines_router = APIRouter(tags=["Files"])
pipelines = Routes(pipelines_router, statuses=(400, 401, 403, 404, 413, 429, 500, 503), served_by=MeteredRoute)


@pipelines.post(
    "/v1/pipelines",
    "Run conversions one after another in one operation",
    answers_json(OperationResult, "Ended within `Prefer: wait`: the finished operation"),
    openapi_extra={OPERATION_ID: "pipelines_create", "parameters": [PREFER_WAIT_PARAMETER, IDEMPOTENCY_KEY_PARAMETER]},
)
async def create_pipeline(
    pipeline: PipelineRequest, request: Request, admission: Annotated[Admission, Depends(metered)]
) -> Response:
    """JSON {inputs, stages, output?}. inputs: uploads ({upload: upl_...}) and public https URLs ({url}), in
    order, at most 100; stages: at most 10 conversions of the catalogue ({run: "pdf/merge", options: {...}}, the
    conversion's path without /v1/ and its own options as JSON values). Files flow from stage to stage: a stage
    that takes one file runs once per file it is given, one that takes several (pdf/merge) takes them all, and
    every file a stage gives goes on. The whole pipeline is checked first: an unknown conversion or option, or a
    stage that cannot take what the one before gives, is 400 naming the stage, with nothing charged. Each stage
    counts as one request (the rate limit and the quota): all are reserved now (429 saying how many the
    pipeline needs), and those of stages that do not succeed are given back. Answers 202 with the operation;
    GET it for each stage's status, time and files. output.put: a presigned PUT URL per final file (S3, Google
    Cloud Storage, Azure SAS), with optional headers; a PUT that fails after retries is reported per file in
    `outputs`, and the result links stay. `Prefer: wait=N` (N <= 25) answers 200 with the finished operation
    when it ends within N seconds."""
    from fileapi.web.pipelines import accept_pipeline

    return await accept_pipeline(request, pipeline, admission)


@files.get("/v1/webhooks", "List the webhook endpoints", WebhookList, **named("webhooks_list"))
async def list_webhooks(admission: Annotated[Admission, Depends(self_service)]) -> Response:
    """The account's endpoints, oldest first, without their secrets. Not counted."""
    hooks = await off_the_loop(get_file_services().webhooks.store.list, admission.account_id)
    return json_response(WebhookList(webhooks=[_webhook(hook) for hook in hooks]))


@files.route("DELETE", "/v1/webhooks/{webhook_id}", "Delete a webhook endpoint", NO_CONTENT, **named("webhooks_delete"))
async def delete_webhook(webhook_id: WebhookId, admission: Annotated[Admission, Depends(self_service)]) -> Response:
    """Deliveries to it stop, queued ones included. Answers 204. Not counted."""
    services = get_file_services()
    webhook = await off_the_loop(services.webhooks.owned, admission.account_id, webhook_id)
    await off_the_loop(services.webhooks.store.delete, admission.account_id, webhook.id)
    return Response(status_code=204)


app = create_app(router, pipelines_router, title="Files")
handler = lambda_handler(app)
