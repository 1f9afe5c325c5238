"""An operation runs from the queue to its result over the catalogue's declaration alone: traced call by call in the
Operations function's process (its conversion runs in a worker process), no code of the web layer is entered."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from fastapi.testclient import TestClient

import fileapi
from fileapi.local.queues import QueueConsumer
from tests.operations.helpers import accepted, pdf_with_pages, shown, upload_file

PACKAGE = Path(fileapi.__file__).parent
OPERATIONS_FUNCTION = PACKAGE.parents[1] / "functions" / "operations"


@contextmanager
def calls_traced() -> Iterator[set[str]]:
    """The source files of every Python function called meanwhile, in this thread and in threads started meanwhile."""
    files: set[str] = set()

    def profile(frame: FrameType, event: str, argument: Any) -> None:
        if event == "call":
            files.add(frame.f_code.co_filename)

    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        yield files
    finally:
        sys.setprofile(None)
        threading.setprofile(None)


def package_parts(files: set[str]) -> set[str]:
    """The fileapi subpackages (or top-level modules) the traced files belong to."""
    return {Path(name).relative_to(PACKAGE).parts[0] for name in files if Path(name).is_relative_to(PACKAGE)}


def test_an_operation_runs_from_the_queue_to_its_result_without_entering_the_web_layer(
    api: TestClient, key: str, executor_consumer: QueueConsumer
) -> None:
    # GIVEN a split accepted through the API (the web layer's part ends with the 202)
    upload = upload_file(api, key, pdf_with_pages(5), content_type="application/pdf")
    operation = accepted(api, key, "/v1/pdf/split", [upload], ranges="1-2,3-5")
    # WHEN the Operations function takes it from the queue and runs it
    with calls_traced() as files:
        assert executor_consumer.poll_once() == 1
    # THEN it ran through the catalogue, the operations and the storage room, and never through fileapi.web
    parts = package_parts(files)
    assert {"catalogue", "operations", "storage"} <= parts, parts
    assert str(PACKAGE / "operations" / "conversions.py") in files
    assert "web" not in parts, sorted(name for name in files if "/web/" in name)
    assert shown(api, key, operation["id"])["status"] == "succeeded"


def test_the_operations_function_loads_neither_the_web_layer_nor_a_web_framework() -> None:
    # GIVEN the Operations function's handler module imported as Lambda imports it, in a fresh interpreter
    code = (
        f"import sys, json; sys.path[:0] = [{str(OPERATIONS_FUNCTION)!r}, {str(PACKAGE.parent)!r}]; "
        "import app; print(json.dumps(sorted(sys.modules)))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/", check=True)
    loaded: list[str] = json.loads(result.stdout)
    # THEN it holds the catalogue and the executor, and no module of fileapi.web, FastAPI or Starlette
    assert {"fileapi.catalogue.registry", "fileapi.operations.executor"} <= set(loaded)
    tops = {name.partition(".")[0] for name in loaded}
    assert not tops & {"fastapi", "starlette", "mangum"}, sorted(tops)
    assert not [name for name in loaded if name.startswith("fileapi.web")]
