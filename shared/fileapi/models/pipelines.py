"""Pipelines: several conversions of the catalogue in one operation, from uploads or URLs, to our links or the
customer's own storage."""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from fileapi.models import ApiModel, ApiRequest, example

MAX_STAGES = 10
MAX_INPUTS = 100
MAX_OUTPUTS = 100


class StrictModel(ApiRequest):
    """A request object that refuses fields it does not know (a misspelled `optoins` is 400 naming `options`,
    not ignored: fileapi.models.ClosedModel)."""


class PipelineInput(StrictModel):
    """One input: an upload of the account, or a URL fetched when the pipeline runs."""

    model_config = example({"url": "https://example.com/b.pdf"})

    upload: str | None = Field(default=None, max_length=64, description="An upload's id (upl_...).")
    url: str | None = Field(
        default=None,
        max_length=8192,
        description="A public https URL, fetched when the pipeline runs (size-capped by the plan's upload limit; "
        "docs/urls.md says the rules).",
    )

    @model_validator(mode="after")
    def _one_source(self) -> PipelineInput:
        if (self.upload is None) == (self.url is None):
            raise ValueError("give exactly one of upload and url")
        return self


class PipelineStage(StrictModel):
    """One stage: a conversion of the catalogue by its path without /v1/, and its own options."""

    model_config = example({"run": "pdf/compress", "options": {"imageMaxSide": 2000}})

    run: str = Field(max_length=100, description="The conversion, e.g. `pdf/merge` (its path without `/v1/`).")
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="The conversion's options, by their names in its query string (or its JSON body), as JSON "
        "values: validated by the conversion's own model.",
    )


class PipelinePut(StrictModel):
    """Where one final file goes: a presigned PUT URL (S3, Google Cloud Storage, Azure SAS), with headers."""

    model_config = example(
        {
            "url": "https://bucket.s3.amazonaws.com/out.pdf?X-Amz-Signature=...",
            "headers": {"Content-Type": "application/pdf"},
        }
    )

    url: str = Field(max_length=8192, description="A presigned PUT URL (public https).")
    headers: dict[str, str] = Field(default_factory=dict, description="Headers to send with the PUT.")


class PipelineOutput(StrictModel):
    """Where the final files go besides our links: `put[i]` receives the i-th final file."""

    model_config = example({"put": [{"url": "https://bucket.s3.amazonaws.com/out.pdf?X-Amz-Signature=..."}]})

    put: list[PipelinePut] = Field(min_length=1, max_length=MAX_OUTPUTS, description="One per final file, in order.")


class PipelineRequest(StrictModel):
    """Several conversions in one operation: the inputs flow through the stages, in order."""

    model_config = example(
        {
            "inputs": [{"upload": "upl_9d2k4m6p8r0t1v3x5z7b9c1e3g"}, {"url": "https://example.com/b.pdf"}],
            "stages": [
                {"run": "pdf/merge"},
                {"run": "pdf/compress", "options": {"imageMaxSide": 2000}},
                {"run": "pdf/watermark", "options": {"text": "DRAFT"}},
            ],
        }
    )

    inputs: list[PipelineInput] = Field(
        default_factory=list, max_length=MAX_INPUTS, description="The files, in order (none for a first stage "
        "that takes only options, such as qr/generate)."
    )  # fmt: skip
    stages: list[PipelineStage] = Field(min_length=1, max_length=MAX_STAGES, description="The conversions, in order.")
    output: PipelineOutput | None = Field(default=None, description="Also PUT the final files here.")


class StageReport(ApiModel):
    """How one stage of a pipeline went."""

    model_config = example({"run": "pdf/merge", "status": "succeeded", "seconds": 0.42, "files": ["merged.pdf"]})

    run: str = Field(description="The conversion.")
    status: str = Field(description="waiting, succeeded, failed or skipped (a stage after a failed one).")
    seconds: float | None = Field(default=None, description="How long it ran.")
    files: list[str] = Field(default_factory=list, description="The names of the files it gave.")
    headers: dict[str, dict[str, str]] | None = Field(
        default=None,
        description="What the synchronous answer would say in its headers (X-Quality-Score and X-Encoder-Quality "
        "with targetScore, X-Animation...), by the name of the file it describes; absent when there is none.",
    )


class OutputReport(ApiModel):
    """How the PUT of one final file to the customer's storage went."""

    model_config = example({"file": "result.pdf", "status": 200, "attempts": 1})

    file: str = Field(description="The final file's name.")
    status: int | None = Field(default=None, description="The HTTP status of the last attempt (absent: none answered).")
    attempts: int = Field(description="How many PUTs were tried.")
    error: str | None = Field(default=None, description="Why it failed, when it did (the result link still works).")
