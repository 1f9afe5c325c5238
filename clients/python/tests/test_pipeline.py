"""The pipeline builder against `fileapi run`: a local file uploaded, stages run on the server, files fetched and
checked; a pipeline the server refuses raises the class of its error code."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from conftest import LocalApi
from fileapi_client import FileApi
from fileapi_client.errors import InvalidInput
from pypdf import PdfReader
from sample_files import pdf

pytestmark = pytest.mark.server


def test_a_path_and_bytes_merged_then_watermarked(local_api: LocalApi, tmp_path: Path) -> None:
    first = tmp_path / "a.pdf"
    first.write_bytes(pdf(2))
    statuses: list[str] = []
    with FileApi(local_api.api_key, base_url=local_api.base_url) as api:
        result = (
            api.pipeline()
            .input(first, content_type="application/pdf")
            .input(pdf(1), content_type="application/pdf")
            .then("pdf/merge")
            .then("pdf/watermark", text="DRAFT", opacity=0.4)
            .run(wait_seconds=60, on_status=lambda operation: statuses.append(str(operation["status"])))
        )
    assert [stage["status"] for stage in result.stages] == ["succeeded", "succeeded"]
    reader = PdfReader(io.BytesIO(result.files[0]))
    assert len(reader.pages) == 3 and "DRAFT" in reader.pages[2].extract_text()
    assert statuses[-1] == "succeeded"


def test_an_unknown_stage_raises_invalid_input_naming_it(local_api: LocalApi) -> None:
    with FileApi(local_api.api_key, base_url=local_api.base_url) as api, pytest.raises(InvalidInput) as raised:
        api.pipeline().input(pdf(1), content_type="application/pdf").then("pdf/compres").run()
    assert "stages[0].run" in raised.value.message and "pdf/compress" in raised.value.message
