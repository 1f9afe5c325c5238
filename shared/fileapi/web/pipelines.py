"""POST /v1/pipelines: several conversions in one operation, accepted after the whole pipeline is checked.

Before anything is queued: every stage is checked against the catalogue (fileapi.operations.pipelines.plan);
each upload must be the account's, each URL input and PUT output must pass the one URL parser and address check
(fileapi.net); and every stage after the first reserves its own unit of the quota (the request's own admission
is the first stage's), so a pipeline is refused at once without enough quota, saying how many it needs. The
operation then owns the units: those of stages that do not succeed are given back once, when it ends
(fileapi.operations.service). `Prefer: wait=N` (RFC 7240, N <= 25) holds the answer until the pipeline ends.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from fileapi.errors import ApiError
from fileapi.metering.plans import max_upload_bytes
from fileapi.services import get_file_services, get_meter
from fileapi.web.invocation import off_the_loop
from fileapi.web.operations import accepted

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

    from fileapi.file_services import FileServices
    from fileapi.metering.meter import Admission
    from fileapi.models.pipelines import PipelineRequest

MAX_WAIT_SECONDS = 25  # API Gateway answers within 29 s
POLL_SECONDS = 0.25


async def accept_pipeline(request: Request, pipeline: PipelineRequest, admission: Admission) -> Response:
    """Check the pipeline, reserve its stages' units, record and queue it; 202 (200 when `Prefer: wait` saw it end).

    :raises InvalidInput: a stage, an option, an input or an output the pipeline cannot run with (400, naming it).
    :raises NotFound: an upload that is not the account's.
    :raises RateLimited, QuotaExceeded: the units of the stages after the first could not all be reserved.
    """
    from fileapi.operations.pipelines import MAX_INPUT_BYTES, PIPELINE, PIPELINES_ROUTE, plan
    from fileapi.operations.records import Charge
    from fileapi.operations.service import CHARGES

    stages = plan(pipeline)
    services = get_file_services()
    await off_the_loop(_check_inputs, pipeline, services, admission.account_id)
    extra = await off_the_loop(_reserve, request, admission, len(stages) - 1)
    try:
        options = {
            PIPELINE: pipeline.model_dump(mode="json", by_alias=True, exclude_none=True),
            MAX_INPUT_BYTES: max_upload_bytes(admission.state.plan),
            CHARGES: [[charge.period, charge.request_id, charge.shard, charge.day] for charge in map(Charge.of, extra)],
        }
        uploads = [source.upload for source in pipeline.inputs if source.upload is not None]
        operation = await off_the_loop(
            services.operations.submit, admission, route=PIPELINES_ROUTE, query="", options=options, uploads=uploads
        )
    except BaseException:
        await off_the_loop(_give_back, extra)
        raise
    waited = preferred_wait(request.headers.getlist("prefer"))
    if waited:
        deadline = time.monotonic() + waited
        while not operation.ended and time.monotonic() < deadline:
            await asyncio.sleep(POLL_SECONDS)
            operation = await off_the_loop(services.operations.owned, operation.id, admission.account_id)
    return accepted(services, operation, prefer_async=False, waited=bool(waited))


def preferred_wait(values: list[str]) -> int:
    """The seconds of a `wait=N` preference among the Prefer header fields `values` (RFC 7240), at most
    MAX_WAIT_SECONDS; 0 when there is none."""
    for value in values:
        for preference in value.split(","):
            name, _, given = preference.split(";", 1)[0].partition("=")
            if name.strip().lower() == "wait" and given.strip().isdigit():
                return min(int(given.strip()), MAX_WAIT_SECONDS)
    return 0


def _check_inputs(pipeline: PipelineRequest, services: FileServices, account_id: str) -> None:
    """Each upload is the account's and holds its file; each URL passes the address rules (resolved now, and
    again, pinned, when it is fetched); each output's headers may be sent."""
    from fileapi.net.addresses import check_url
    from fileapi.net.put import check_headers

    for index, source in enumerate(pipeline.inputs):
        if source.upload is not None:
            services.uploads.stored_size(services.uploads.owned(source.upload, account_id))
        elif source.url is not None:
            check_url(source.url, field=f"inputs[{index}].url", policy=services.egress)
    if pipeline.output is not None:
        for index, target in enumerate(pipeline.output.put):
            check_url(target.url, field=f"output.put[{index}].url", policy=services.egress)
            check_headers(target.headers, field=f"output.put[{index}].headers")


def _reserve(request: Request, admission: Admission, count: int) -> list[Admission]:
    """Admit `count` more units for the stages after the first (each its own request id); none when any is
    refused (those taken are given back), and the refusal says how many the pipeline counts."""
    meter = get_meter()
    taken: list[Admission] = []
    authorization = request.headers.get("authorization")
    try:
        for stage in range(2, count + 2):
            taken.append(meter.admit(authorization, counted=True, request_id=f"{admission.request_id}.{stage}"))
    except ApiError as refused:
        _give_back(taken)
        refused.message = f"this pipeline counts {count + 1} requests, one per stage: {refused.message}"
        raise
    return taken


def _give_back(units: list[Admission]) -> None:
    meter = get_meter()
    for unit in units:
        meter.refund(unit)
