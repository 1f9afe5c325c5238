"""A pipeline builder: inputs, stages and outputs, then one POST /v1/pipelines and its files.

    result = api.pipeline().input("scan.pdf").input("https://example.com/b.pdf") \\
        .then("pdf/merge").then("pdf/compress", imageMaxSide=2000).run()
    result.files[0]  # the merged, compressed PDF's bytes (SHA-256 checked)

A local input (a path, bytes or a file object) is uploaded first (`POST /v1/uploads`, any size up to the plan's
limit); a string starting with https:// or http:// is a URL input, fetched by the service. `run` polls the
operation as its Retry-After says, then downloads each result and checks its SHA-256.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fileapi_client._large import source_of
from fileapi_client._transfer import _checked

if TYPE_CHECKING:
    from fileapi_client._large import StatusProgress, UploadProgress
    from fileapi_client.client import FileApi

PIPELINES_PATH = "/v1/pipelines"


@dataclass(frozen=True)
class PipelineResult:
    """A finished pipeline: the operation as GET shows it (its stages, outputs, details) and its files' bytes."""

    operation: dict[str, Any]
    files: list[bytes]

    @property
    def stages(self) -> list[dict[str, Any]]:
        """Each stage's status, seconds, file names and, by file, the headers a synchronous answer would carry."""
        stages: list[dict[str, Any]] = self.operation.get("stages", [])
        return stages


@dataclass
class Pipeline:
    """Inputs, stages and outputs of one pipeline (build with `FileApi.pipeline()`, then `run`)."""

    api: FileApi
    inputs: list[Any] = field(default_factory=list)
    stages: list[dict[str, Any]] = field(default_factory=list)
    puts: list[dict[str, Any]] = field(default_factory=list)

    def input(self, source: Any, *, content_type: str = "application/octet-stream") -> Pipeline:
        """Add an input: a URL (https://...), or a path, bytes or binary file object (uploaded by `run`)."""
        if isinstance(source, str) and source.startswith(("https://", "http://")):
            self.inputs.append({"url": source})
        else:
            self.inputs.append(source_of(source, "input", content_type))
        return self

    def then(self, run: str, **options: Any) -> Pipeline:
        """Add a stage: a conversion by its path without /v1/ (`pdf/compress`) and its options by their API
        names (`imageMaxSide=2000`)."""
        self.stages.append({"run": run, "options": options})
        return self

    def put(self, url: str, headers: dict[str, str] | None = None) -> Pipeline:
        """Also PUT the next final file to `url` (a presigned PUT URL of your storage), with `headers`."""
        self.puts.append({"url": url, "headers": headers or {}})
        return self

    def body(self, upload_ids: list[str]) -> dict[str, Any]:
        """The request's JSON, the local inputs named by `upload_ids` (in order)."""
        uploads = iter(upload_ids)
        inputs = [item if isinstance(item, dict) else {"upload": next(uploads)} for item in self.inputs]
        request: dict[str, Any] = {"inputs": inputs, "stages": self.stages}
        if self.puts:
            request["output"] = {"put": self.puts}
        return request

    def run(
        self,
        *,
        wait_seconds: float | None = None,
        idempotency_key: str | None = None,
        on_upload: UploadProgress | None = None,
        on_status: StatusProgress | None = None,
    ) -> PipelineResult:
        """Upload the local inputs, submit the pipeline, wait for it, and fetch its files (SHA-256 checked).

        :raises ApiError: the API refused it (a stage named in the message), or it failed (the failed stage's
            code, with `operation_id` set).
        :raises OperationTimeout: still running after `wait_seconds`.
        """
        api = self.api
        upload_ids = [api._upload(item, on_upload) for item in self.inputs if not isinstance(item, dict)]
        headers = api._headers({"Idempotency-Key": idempotency_key or str(uuid.uuid4())})
        answer = api._send("POST", api.base_url + PIPELINES_PATH, json=self.body(upload_ids), headers=headers).json()
        operation = api.wait_operation(str(answer["id"]), wait_seconds=wait_seconds, on_status=on_status)
        results = operation.get("results") or []
        return PipelineResult(operation, [_checked(api.download(str(item["url"])), item) for item in results])
