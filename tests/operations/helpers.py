"""Inputs and steps the operations tests share: real PDFs and images, a real multipart POST to S3."""

from __future__ import annotations

import hashlib
import io
from typing import Any

import httpx
from fastapi.testclient import TestClient

from tests.operations.conftest import bearer


def pdf_with_pages(count: int) -> bytes:
    """A PDF of `count` pages, each with its number drawn in its content stream."""
    import pikepdf

    pdf = pikepdf.Pdf.new()
    for number in range(1, count + 1):
        page = pdf.add_blank_page(page_size=(200, 200))
        page.Contents = pdf.make_stream(f"BT /F1 24 Tf 50 100 Td ({number}) Tj ET".encode())
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def png_image(width: int, height: int) -> bytes:
    """An RGB PNG with a gradient."""
    from PIL import Image

    image = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def upload_file(api: TestClient, key: str, data: bytes, *, content_type: str, filename: str = "file") -> str:
    """Make an upload through the API and POST `data` to its presigned form, as a client does; its id."""
    answer = api.post(
        "/v1/uploads",
        json={"filename": filename, "contentType": content_type, "size": len(data)},
        headers=bearer(key),
    )
    assert answer.status_code == 201, answer.text
    created: dict[str, Any] = answer.json()
    posted = httpx.post(created["url"], data=created["fields"], files={"file": (filename, data, content_type)})
    assert posted.status_code == 204, posted.text
    return str(created["id"])


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def accepted(api: TestClient, key: str, route: str, uploads: list[str], **options: str) -> dict[str, Any]:
    """POST `route` naming `uploads` with `options` in the query; the operation of its 202 answer."""
    query = "&".join([*(f"upload={upload}" for upload in uploads), *(f"{k}={v}" for k, v in options.items())])
    answer = api.post(f"{route}?{query}", headers=bearer(key))
    assert answer.status_code == 202, answer.text
    operation: dict[str, Any] = answer.json()
    assert answer.headers["Location"] == f"/v1/operations/{operation['id']}"
    assert answer.headers["Retry-After"] == "2"
    assert operation["status"] == "running"
    return operation


def shown(api: TestClient, key: str, operation_id: str) -> dict[str, Any]:
    """GET /v1/operations/{operation_id} with `key`: its JSON."""
    answer = api.get(f"/v1/operations/{operation_id}", headers=bearer(key))
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def used(api: TestClient, key: str) -> int:
    """Requests counted this month for `key`."""
    return int(api.get("/v1/usage", headers=bearer(key)).json()["used_this_month"])


def fetched(url: str) -> bytes:
    """The file a result's presigned link serves."""
    answer = httpx.get(url)
    assert answer.status_code == 200
    return answer.content
