"""The three pipeline recipes of docs/api.md, run as written: only their upload ids and URLs are replaced by the
test's own uploads, local server and presigned PUT to moto's S3."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pikepdf
import pypdf
from fastapi.testclient import TestClient
from PIL import Image

from fileapi.file_services import FileServices
from fileapi.local.queues import QueueConsumer
from fileapi.local.template import PROJECT_ROOT
from tests.operations.conftest import bearer
from tests.operations.helpers import fetched, pdf_with_pages, png_image, shown, upload_file
from tests.operations.test_pipelines import served  # noqa: F401 - the local server fixture

RECIPES = re.compile(r"### Recipes\n(.*?)\n## ", re.S)
UPLOAD_ID = re.compile(r"upl_[a-z0-9]{26}")


def recipes() -> list[dict[str, Any]]:
    """The JSON bodies of docs/api.md's recipes, in order."""
    section = RECIPES.search((PROJECT_ROOT / "docs" / "api.md").read_text(encoding="utf-8"))
    assert section is not None
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)\n```", section.group(1), re.S)]


def with_uploads(recipe: dict[str, Any], uploads: list[str]) -> dict[str, Any]:
    text = json.dumps(recipe)
    for written, upload in zip(UPLOAD_ID.findall(text), uploads, strict=True):
        text = text.replace(written, upload)
    replaced: dict[str, Any] = json.loads(text)
    return replaced


def ran(api: TestClient, key: str, consumer: QueueConsumer, body: dict[str, Any]) -> dict[str, Any]:
    response = api.post("/v1/pipelines", json=body, headers=bearer(key))
    assert response.status_code == 202, response.text
    consumer.poll_once()
    ended = shown(api, key, response.json()["id"])
    assert ended["status"] == "succeeded", ended
    return ended


def test_docs_hold_three_recipes() -> None:
    assert [[stage["run"] for stage in recipe["stages"]] for recipe in recipes()] == [
        ["pdf/split", "pdf/compress"],
        ["image/resize", "image/convert"],
        ["pdf/merge", "pdf/watermark", "pdf/protect"],
    ]


def test_scans_split_then_each_part_compressed(
    api: TestClient, key: str, files: FileServices, executor_consumer: QueueConsumer
) -> None:
    upload = upload_file(api, key, pdf_with_pages(3), content_type="application/pdf")
    ended = ran(api, key, executor_consumer, with_uploads(recipes()[0], [upload]))
    assert [part["name"] for part in ended["results"]] == ["1-bytes.pdf", "2-bytes.pdf"]
    assert [len(pikepdf.open(io.BytesIO(fetched(part["url"]))).pages) for part in ended["results"]] == [2, 1]


def test_an_image_url_resized_to_webp_and_put_in_a_bucket(
    api: TestClient,
    key: str,
    files: FileServices,
    executor_consumer: QueueConsumer,
    served: dict[str, Any],  # noqa: F811
) -> None:
    served["files"]["photo.png"] = png_image(1600, 1200)
    recipe = recipes()[1]
    recipe["inputs"][0]["url"] = f"{served['base']}/photo.png"
    s3 = files.uploads.s3
    presigned = s3.generate_presigned_url(
        "put_object",
        Params={"Bucket": files.uploads.bucket, "Key": "exports/photo.webp", "ContentType": "image/webp"},
        ExpiresIn=600,
    )
    recipe["output"]["put"][0]["url"] = presigned
    ended = ran(api, key, executor_consumer, recipe)
    assert ended["outputs"][0]["status"] == 200
    stored = s3.get_object(Bucket=files.uploads.bucket, Key="exports/photo.webp")
    image = Image.open(io.BytesIO(stored["Body"].read()))
    assert (image.format, image.size, stored["ContentType"]) == ("WEBP", (800, 600), "image/webp")


def test_invoices_merged_watermarked_and_protected(
    api: TestClient, key: str, files: FileServices, executor_consumer: QueueConsumer
) -> None:
    uploads = [upload_file(api, key, pdf_with_pages(count), content_type="application/pdf") for count in (1, 2)]
    recipe = with_uploads(recipes()[2], uploads)
    ended = ran(api, key, executor_consumer, recipe)
    reader = pypdf.PdfReader(io.BytesIO(fetched(ended["result"]["url"])))
    assert reader.is_encrypted
    assert reader.decrypt(recipe["stages"][2]["options"]["userPassword"]) != 0
    assert len(reader.pages) == 3 and all("DRAFT" in page.extract_text() for page in reader.pages)
