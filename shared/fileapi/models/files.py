"""Uploads, operations and webhooks: the shapes of files beyond the synchronous limit (docs/api.md)."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from pydantic import Field

from fileapi.models import ApiModel, ApiRequest, example
from fileapi.models.pipelines import OutputReport, StageReport
from fileapi.net.urls import MAX_URL_CHARS


def iso_seconds(epoch_seconds: float) -> str:
    """An instant as RFC 3339 UTC to the second, e.g. 2026-11-02T12:00:00Z."""
    return datetime.fromtimestamp(int(epoch_seconds), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class OperationStatus(StrEnum):
    """Where an operation is: `running` until it ends as one of the others."""

    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


MEDIA_TYPE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$"


class UploadRequest(ApiRequest):
    """A file to be uploaded: its name, media type and size."""

    model_config = example({"filename": "scan.pdf", "contentType": "application/pdf", "size": 125829120})

    filename: str = Field(min_length=1, max_length=255, description="The file's name (kept for the client only).")
    content_type: str = Field(
        pattern=MEDIA_TYPE_PATTERN, max_length=255, description="Its media type; the form must send the same."
    )
    size: int = Field(ge=1, description="Its size in bytes; at most the plan's upload limit (413 above).")


class UploadResult(ApiModel):
    """A presigned POST: send the file as multipart/form-data to `url`, with every field of `fields` first and
    the file last, as the part named `file`."""

    model_config = example(
        {
            "id": "upl_3k5x0c7b2m9q4w8e1r6t0y2u4i",
            "url": "https://fileapi-prod-files.s3.amazonaws.com/",
            "fields": {
                "key": "uploads/...",
                "Content-Type": "application/pdf",
                "policy": "...",
                "x-amz-signature": "...",
            },
            "expiresAt": "2026-11-02T13:00:00Z",
            "maxBytes": 2147483648,
        }
    )

    id: str = Field(description="The upload's id: name it with `?upload=` on a file endpoint.")
    url: str = Field(description="Where to POST the form.")
    fields: dict[str, str] = Field(description="Form fields to send before the file, as given.")
    expires_at: str = Field(
        description="When the POST stops being accepted.", json_schema_extra={"format": "date-time"}
    )
    max_bytes: int = Field(description="The largest file the POST accepts (the plan's upload limit).")


class OperationFile(ApiModel):
    """One file of an operation's result: a presigned GET link (no key needed), valid until `expiresAt`."""

    model_config = example(
        {
            "name": "pdfs-1.pdf",
            "field": "pdfs[0]",
            "url": "https://fileapi-prod-files.s3.amazonaws.com/results/...",
            "contentType": "application/pdf",
            "size": 52000,
            "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "expiresAt": "2026-11-03T12:00:41Z",
        }
    )

    name: str = Field(description="A file name for it, e.g. result.webp or pdfs-3.pdf.")
    field: str | None = Field(
        default=None,
        description="The field of the endpoint's JSON answer this file stands for (its Base64 text), e.g. "
        "`pdfs[2]` or `pages[0].bytes`; absent when the file is the endpoint's whole answer (bytes or text).",
    )
    url: str = Field(description="Presigned GET link of the file (no key needed).")
    content_type: str = Field(description="Its media type.")
    size: int = Field(description="Its size in bytes.")
    sha256: str = Field(description="Lowercase hex SHA-256 of the file.")
    expires_at: str = Field(description="When the link stops working.", json_schema_extra={"format": "date-time"})


class OperationError(ApiModel):
    """Why an operation failed: an error code of /docs/errors and a message saying what to do."""

    model_config = example({"code": "invalid_input", "message": "the body is not a PDF (no %PDF- header)"})

    code: str = Field(description="The error code, as the synchronous request would have answered it.")
    message: str = Field(description="What was wrong and what to do.")
    stage: int | None = Field(default=None, description="For a pipeline: the stage that failed (0-based).")


class OperationResult(ApiModel):
    """An operation: running, then succeeded (with its files) or failed (with its error), or cancelled."""

    model_config = example(
        {
            "id": "op_9d2k4m6p8r0t1v3x5z7b9c1e3g",
            "status": "succeeded",
            "route": "/v1/image/convert",
            "createdAt": "2026-11-02T12:00:00Z",
            "updatedAt": "2026-11-02T12:00:41Z",
            "result": {
                "name": "result.webp",
                "url": "https://fileapi-prod-files.s3.amazonaws.com/results/...",
                "contentType": "image/webp",
                "size": 5214332,
                "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                "expiresAt": "2026-11-03T12:00:41Z",
            },
            "results": [
                {
                    "name": "result.webp",
                    "url": "https://fileapi-prod-files.s3.amazonaws.com/results/...",
                    "contentType": "image/webp",
                    "size": 5214332,
                    "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                    "expiresAt": "2026-11-03T12:00:41Z",
                }
            ],
        }
    )

    id: str = Field(description="The operation's id (op_...).")
    status: OperationStatus = Field(description="running, then succeeded, failed or cancelled.")
    route: str = Field(description="The endpoint whose work it runs, e.g. /v1/pdf/split.")
    created_at: str = Field(description="When it was accepted.", json_schema_extra={"format": "date-time"})
    updated_at: str = Field(description="When its state last changed.", json_schema_extra={"format": "date-time"})
    result: OperationFile | None = Field(
        default=None, description="Succeeded with one file (a binary or text answer, or one file field): that file."
    )
    results: list[OperationFile] | None = Field(
        default=None, description="Succeeded: every file, in order (split's PDFs, a favicon set's images...)."
    )
    details: dict[str, Any] | None = Field(
        default=None,
        description="Succeeded: the endpoint's JSON answer without the fields that became files (e.g. compress's "
        "sizes), or the headers of a binary answer beyond its type (e.g. X-Animation).",
    )
    error: OperationError | None = Field(default=None, description="Failed or cancelled: why.")
    stages: list[StageReport] | None = Field(
        default=None, description="A pipeline (POST /v1/pipelines): each stage's status, time and files, in order."
    )
    outputs: list[OutputReport] | None = Field(
        default=None, description="A pipeline with `output.put`: how each final file's PUT went."
    )
    ran_seconds: float | None = Field(
        default=None,
        description="Once its work has stopped (it ended, or was cancelled and its conversion stopped, within a "
        "second of the DELETE): the seconds it ran, waits for its turn not included.",
    )


class WebhookRequest(ApiRequest):
    """An endpoint to receive a signed event when an operation of the account ends."""

    model_config = example({"url": "https://example.com/hooks/fileapi"})

    url: str = Field(
        min_length=8,
        max_length=MAX_URL_CHARS,
        description="A public https:// URL: no user name or password, control characters or spaces.",
    )


class WebhookResult(ApiModel):
    """A webhook endpoint. `secret` (whsec_...) verifies its deliveries; it is shown when the endpoint is
    made, and never again."""

    model_config = example(
        {
            "id": "wh_4f8k2m0q6s1u3w5y7a9c1e3g5i",
            "url": "https://example.com/hooks/fileapi",
            "createdAt": "2026-11-02T12:00:00Z",
            "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        }
    )

    id: str = Field(description="The endpoint's id.")
    url: str = Field(description="Where deliveries go.")
    created_at: str = Field(description="When it was registered.", json_schema_extra={"format": "date-time"})
    secret: str | None = Field(default=None, description="Only in the answer that registers it: the signing secret.")


class WebhookList(ApiModel):
    """The account's webhook endpoints."""

    model_config = example(
        {
            "webhooks": [
                {
                    "id": "wh_4f8k2m0q6s1u3w5y7a9c1e3g5i",
                    "url": "https://example.com/hooks/fileapi",
                    "createdAt": "2026-11-02T12:00:00Z",
                }
            ]
        }
    )

    webhooks: list[WebhookResult] = Field(description="Every endpoint, oldest first (without secrets).")
