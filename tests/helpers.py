"""Helpers for tests: auth headers, the shared corpus, in-memory metering and a Lambda context."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def photo_png(width: int = 300, height: int = 260) -> bytes:
    """A smooth, photo-like PNG (noise blobs over a gradient): what targetScore searches on."""
    import io

    from PIL import Image

    noise = Image.effect_noise((width // 12, height // 12), 24).resize((width, height), Image.Resampling.BICUBIC)
    gradient = Image.linear_gradient("L").resize((width, height))
    out = io.BytesIO()
    Image.merge("RGB", (noise, gradient, Image.blend(noise, gradient, 0.5))).save(out, "PNG")
    return out.getvalue()


@pytest.fixture()
def without_stripe_params(monkeypatch: pytest.MonkeyPatch) -> None:
    """`stripe.params` unimportable, as in the dependency layer: layers/Makefile removes it (9 MB of typed
    parameter dictionaries that only type checkers read)."""
    import sys

    for name in [name for name in sys.modules if name == "stripe.params" or name.startswith("stripe.params.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "stripe.params", None)


def newest_mail_to(address: str) -> str:
    """The text of the newest message to `address` in the API's outbox (local mailer)."""
    import email
    import email.policy

    from fileapi.settings import get_settings

    for path in sorted(get_settings().outbox_dir.glob("*.eml"), key=lambda p: p.stat().st_mtime_ns, reverse=True):
        message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        if message["To"] == address:
            return str(message.get_body().get_content())  # type: ignore[union-attr]
    raise AssertionError(f"no mail to {address}")


def corpus_dir(name: str) -> Path:
    """A folder of ../shared/corpus, or skip the test when the corpus is absent."""
    path = CORPUS / name
    if not path.is_dir():
        pytest.skip(f"corpus folder {path} is absent")
    return path


def require_tool(name: str) -> str:
    """The path of a command-line tool, or skip the test that needs it (saying which)."""
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed")
    return path


@contextmanager
def in_memory_metering(email: str, plan: str = "business") -> Iterator[str]:
    """The process's meter on a table in moto's in-process DynamoDB mock, with one account; yields its key.
    (For child processes that run the apps without a DynamoDB endpoint: bombs, sizing, tracing.)"""
    from moto import mock_aws

    from fileapi.metering.admin import create_key
    from fileapi.metering.dynamo.connect import dynamo_stores
    from fileapi.services import stores_installed
    from fileapi.storage.table import DynamoTable, create_client, create_table

    with mock_aws():
        table = DynamoTable("in-memory", create_client(region="us-east-1"))
        create_table(table.client, table.table_name)
        stores = dynamo_stores(table)
        with stores_installed(stores):
            yield create_key(stores.accounts, email=email, plan=plan)


@dataclass
class LambdaContext:
    """The parts of the Lambda context object that Powertools and Mangum read."""

    function_name: str = "test"
    memory_limit_in_mb: int = 512
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:123456789012:function:test"
    aws_request_id: str = ""

    def get_remaining_time_in_millis(self) -> int:
        return 29_000


def replace_converter(monkeypatch: Any, path: str, function: Any) -> None:
    """Have the conversion at `path` run `function` instead of its converter, for the test (its route reads the
    declaration's converter on every request; a declaration is frozen, so its field is set in its __dict__)."""
    from fileapi.catalogue.registry import by_path

    monkeypatch.setitem(by_path()[path].__dict__, "convert", function)


def post_bytes(api: Any, key: str, path: str, data: bytes, **params: str) -> Any:
    """POST raw bytes (application/octet-stream) to `path` of the test client `api` with `key`."""
    return api.post(
        path, params=params, content=data, headers={**auth(key), "Content-Type": "application/octet-stream"}
    )


def route_alone(route: Any) -> Any:
    """A TestClient of an app serving `route` alone (a ServedRoute, or FastAPI's own route of its declaration),
    with the shared error mapping, body handling and middleware."""
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from fileapi.web.app import shared_middleware
    from fileapi.web.errors import install_error_handlers
    from fileapi.web.request_bodies import RequestBodyMiddleware

    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)
    app.router.routes.append(route)
    install_error_handlers(app)
    app.add_middleware(RequestBodyMiddleware, routes=app.router.routes)
    for middleware, options in shared_middleware():
        app.add_middleware(middleware, **options)
    return TestClient(app, raise_server_exceptions=False)
