"""Each of the six PDF endpoints that rewrite a document removes active content by default and keeps it when
asked with keepActiveContent, in the way it takes its options (query, JSON body or form field)."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.active_content import active_content, make_active_pdf
from tests.helpers import auth

pytestmark = pytest.mark.tools

ACTIVE = make_active_pdf()
PASSWORD = "open-sesame"
KEPT = {"/OpenAction", "/JavaScript", "/EmbeddedFiles", "/Launch"}


def rewritten(api: TestClient, key: str, endpoint: str, keep: bool | None) -> bytes:
    flag: dict[str, Any] = {} if keep is None else {"keepActiveContent": keep}
    query = {key_: str(value).lower() for key_, value in flag.items()}
    if endpoint == "fill-form (JSON)":
        payload = {"pdf": base64.b64encode(ACTIVE).decode(), "fields": {"name": "Ada"}, **flag}
        response = api.post("/v1/pdf/fill-form", json=payload, headers=auth(key))
    elif endpoint == "fill-form (form)":
        form = {"fields": json.dumps({"name": "Ada"}), **query}
        response = api.post("/v1/pdf/fill-form", files={"file": ("f.pdf", ACTIVE)}, data=form, headers=auth(key))
    else:
        params = {"rotate": {"degrees": "90"}, "watermark": {"text": "DRAFT"}, "protect": {"userPassword": PASSWORD},
                  "compress": {}, "flatten": {}}[endpoint]  # fmt: skip
        response = api.post(f"/v1/pdf/{endpoint}", params={**params, **query}, content=ACTIVE, headers=auth(key))
    assert response.status_code == 200, response.text
    if endpoint == "compress":
        return base64.b64decode(response.json()["bytes"])
    return response.content


ENDPOINTS = ["rotate", "watermark", "protect", "compress", "flatten", "fill-form (JSON)", "fill-form (form)"]


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("keep", [None, False])
def test_active_content_is_removed_unless_kept(api: TestClient, key: str, endpoint: str, keep: bool | None) -> None:
    password = PASSWORD if endpoint == "protect" else None
    assert active_content(rewritten(api, key, endpoint, keep), password=password) == []


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_keep_active_content_keeps_it(api: TestClient, key: str, endpoint: str) -> None:
    password = PASSWORD if endpoint == "protect" else None
    assert set(active_content(rewritten(api, key, endpoint, True), password=password)) >= KEPT


def test_keep_active_content_must_be_a_boolean(api: TestClient, key: str) -> None:
    payload = {"pdf": base64.b64encode(ACTIVE).decode(), "fields": {}, "keepActiveContent": "yes"}
    response = api.post("/v1/pdf/fill-form", json=payload, headers=auth(key))
    assert (response.status_code, response.json()["message"]) == (400, "keepActiveContent must be true or false")
