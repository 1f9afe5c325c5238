"""Pipelines through the API and the queue: checked whole before 202, run stage by stage on the operation's disk,
inputs from uploads and URLs, outputs to our links and to presigned PUTs, a unit per stage."""

from __future__ import annotations

import http.server
import io
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pikepdf
import pypdf
import pytest
from fastapi.testclient import TestClient
from PIL import Image

from fileapi.convert.image import resize_image
from fileapi.file_services import FileServices
from fileapi.local.queues import QueueConsumer
from tests.helpers import photo_png
from tests.operations.conftest import bearer
from tests.operations.helpers import fetched, pdf_with_pages, png_image, sha256, shown, upload_file, used

PIPELINES = "/v1/pipelines"


def submitted(api: TestClient, key: str, body: dict[str, Any], **headers: str) -> dict[str, Any]:
    response = api.post(PIPELINES, json=body, headers={**bearer(key), **headers})
    assert response.status_code == 202, response.text
    assert response.headers["Location"] == f"/v1/operations/{response.json()['id']}"
    operation: dict[str, Any] = response.json()
    return operation


@pytest.fixture()
def served() -> Iterator[dict[str, Any]]:
    """A local HTTP server: GET /<name> serves files[name]; PUT /<name> keeps the body in received[name]."""
    state: dict[str, Any] = {"files": {}, "received": {}}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            data = state["files"].get(self.path.lstrip("/"))
            self.send_response(200 if data is not None else 404)
            self.send_header("Content-Length", str(len(data or b"")))
            self.end_headers()
            self.wfile.write(data or b"")

        def do_PUT(self) -> None:
            length = int(self.headers["Content-Length"])
            state["received"][self.path.lstrip("/")] = (self.rfile.read(length), self.headers.get("Content-Type"))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_: Any) -> None:
            return

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state["base"] = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def test_merge_compress_watermark_from_an_upload_and_a_url_counts_three(
    api: TestClient, key: str, files: FileServices, executor_consumer: QueueConsumer, served: dict[str, Any]
) -> None:
    upload = upload_file(api, key, pdf_with_pages(2), content_type="application/pdf")
    served["files"]["b.pdf"] = pdf_with_pages(3)
    before = used(api, key)
    operation = submitted(
        api,
        key,
        {
            "inputs": [{"upload": upload}, {"url": f"{served['base']}/b.pdf"}],
            "stages": [
                {"run": "pdf/merge"},
                {"run": "pdf/compress", "options": {"imageMaxSide": 2000}},
                {"run": "pdf/watermark", "options": {"text": "DRAFT", "opacity": 0.5}},
            ],
            "output": {"put": [{"url": f"{served['base']}/out.pdf", "headers": {"Content-Type": "application/pdf"}}]},
        },
    )
    assert used(api, key) == before + 3  # a unit per stage, reserved when accepted
    assert executor_consumer.poll_once() == 1
    ended = shown(api, key, operation["id"])
    assert ended["status"] == "succeeded", ended
    assert [(stage["run"], stage["status"]) for stage in ended["stages"]] == [
        ("pdf/merge", "succeeded"),
        ("pdf/compress", "succeeded"),
        ("pdf/watermark", "succeeded"),
    ]
    data = fetched(ended["result"]["url"])
    assert sha256(data) == ended["result"]["sha256"]
    document = pikepdf.open(io.BytesIO(data))
    assert len(document.pages) == 5
    assert all("DRAFT" in page.extract_text() for page in pypdf.PdfReader(io.BytesIO(data)).pages)
    put, content_type = served["received"]["out.pdf"]
    assert put == data and content_type == "application/pdf"
    assert ended["outputs"] == [{"file": ended["result"]["name"], "status": 200, "attempts": 1}]
    assert used(api, key) == before + 3


def test_a_stage_that_takes_one_file_runs_once_per_file(
    api: TestClient, key: str, files: FileServices, executor_consumer: QueueConsumer
) -> None:
    upload = upload_file(api, key, pdf_with_pages(4), content_type="application/pdf")
    operation = submitted(
        api,
        key,
        {
            "inputs": [{"upload": upload}],
            "stages": [
                {"run": "pdf/split", "options": {"ranges": "1-2,3,4"}},
                {"run": "pdf/rotate", "options": {"degrees": 90}},
            ],
        },
    )
    executor_consumer.poll_once()
    ended = shown(api, key, operation["id"])
    assert ended["status"] == "succeeded", ended
    names = [part["name"] for part in ended["results"]]
    assert names == ["1-result.pdf", "2-result.pdf", "3-result.pdf"]
    pages = [pikepdf.open(io.BytesIO(fetched(part["url"]))).pages for part in ended["results"]]
    assert [len(each) for each in pages] == [2, 1, 1]
    assert all(page.obj.get("/Rotate") == 90 for each in pages for page in each)


def test_an_image_from_a_url_is_resized_converted_and_put(
    api: TestClient, key: str, files: FileServices, executor_consumer: QueueConsumer, served: dict[str, Any]
) -> None:
    served["files"]["photo.png"] = png_image(640, 480)
    operation = submitted(
        api,
        key,
        {
            "inputs": [{"url": f"{served['base']}/photo.png"}],
            "stages": [
                {"run": "image/resize", "options": {"width": 320}},
                {"run": "image/convert", "options": {"to": "webp"}},
            ],
            "output": {"put": [{"url": f"{served['base']}/small.webp"}]},
        },
    )
    executor_consumer.poll_once()
    ended = shown(api, key, operation["id"])
    assert ended["status"] == "succeeded", ended
    image = Image.open(io.BytesIO(served["received"]["small.webp"][0]))
    assert (image.format, image.size) == ("WEBP", (320, 240))


def test_a_convert_stage_with_a_target_score_reaches_it_and_reports_what_it_chose(
    api: TestClient, key: str, files: FileServices, executor_consumer: QueueConsumer, tmp_path: Path
) -> None:
    ssimulacra2 = pytest.importorskip("ssimulacra2")
    source = photo_png(600, 520)
    upload = upload_file(api, key, source, content_type="image/png")
    operation = submitted(
        api,
        key,
        {
            "inputs": [{"upload": upload}],
            "stages": [
                {"run": "image/resize", "options": {"width": 300}},
                {"run": "image/convert", "options": {"to": "webp", "targetScore": 80}},
            ],
        },
    )
    executor_consumer.poll_once()
    ended = shown(api, key, operation["id"])
    assert ended["status"] == "succeeded", ended
    resized, converted = ended["stages"]
    assert "headers" not in resized  # a PNG written losslessly: nothing chosen
    chosen = converted["headers"][ended["result"]["name"]]
    assert float(chosen["X-Quality-Score"]) >= 80 and 1 <= int(chosen["X-Encoder-Quality"]) <= 100
    # The independent scorer, against the resize stage's own (lossless) result.
    Image.open(io.BytesIO(resize_image(source, width=300, height=None).data)).save(tmp_path / "reference.png")
    result = Image.open(io.BytesIO(fetched(ended["result"]["url"])))
    assert (result.format, result.size) == ("WEBP", (300, 260))
    result.convert("RGB").save(tmp_path / "result.png")
    assert ssimulacra2.compute_ssimulacra2(str(tmp_path / "reference.png"), str(tmp_path / "result.png")) >= 80


def test_a_failed_middle_stage_is_named_and_its_units_and_the_later_ones_given_back(
    api: TestClient, key: str, files: FileServices, executor_consumer: QueueConsumer
) -> None:
    upload = upload_file(api, key, pdf_with_pages(2), content_type="application/pdf")
    before = used(api, key)
    operation = submitted(
        api,
        key,
        {
            "inputs": [{"upload": upload}],
            "stages": [
                {"run": "pdf/rotate", "options": {"degrees": 90}},
                {"run": "pdf/split", "options": {"ranges": "5-9"}},  # outside the document: 400 when it runs
                {"run": "pdf/compress"},
            ],
        },
    )
    assert used(api, key) == before + 3
    executor_consumer.poll_once()
    ended = shown(api, key, operation["id"])
    assert ended["status"] == "failed"
    assert ended["error"]["code"] == "invalid_input" and ended["error"]["stage"] == 1
    assert ended["error"]["message"].startswith("stages[1] (pdf/split): ")
    assert [stage["status"] for stage in ended["stages"]] == ["succeeded", "failed", "skipped"]
    assert used(api, key) == before + 1  # the stage that succeeded keeps its unit


@pytest.mark.parametrize(
    ("stages", "says"),
    [
        ([{"run": "pdf/merj"}], "stages[0].run: no conversion 'pdf/merj'; did you mean pdf/merge?"),
        (
            [{"run": "pdf/info"}, {"run": "image/resize", "options": {"width": 10}}],
            "stages[1]: image/resize takes a file, and stages[0] gives JSON alone",
        ),
        (
            [
                {"run": "pdf/rotate", "options": {"degrees": 90}},
                {"run": "image/flip", "options": {"direction": "vertical"}},
            ],
            "stages[1]: image/flip takes images, and stages[0] gives PDFs",
        ),
        (
            [{"run": "pdf/rotate", "options": {"degres": 90}}],
            "stages[0].options: unknown option 'degres' for pdf/rotate; did you mean degrees?",
        ),
        ([{"run": "pdf/rotate", "options": {"degrees": 45}}], "stages[0].options (pdf/rotate): degrees"),
        ([{"run": "pdf/info"}] * 11, "stages"),
    ],
)
def test_a_pipeline_that_cannot_run_is_400_naming_the_stage_and_charges_nothing(
    api: TestClient, key: str, files: FileServices, stages: list[dict[str, Any]], says: str
) -> None:
    upload = upload_file(api, key, pdf_with_pages(1), content_type="application/pdf")
    before = used(api, key)
    response = api.post(PIPELINES, json={"inputs": [{"upload": upload}], "stages": stages}, headers=bearer(key))
    assert response.status_code == 400, response.text
    assert response.json()["error"] == "invalid_input" and says in response.json()["message"]
    assert used(api, key) == before


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"inputs": [{}], "stages": [{"run": "pdf/info"}]}, "inputs[0]: give exactly one of upload and url"),
        ({"inputs": [{"url": 5}], "stages": [{"run": "pdf/info"}]}, "inputs[0].url: Input should be a valid string"),
        (
            {"inputs": [{"url": "https://example.com/a.pdf"}], "stages": [{"run": "pdf/info", "optoins": {}}]},
            "unknown field 'stages[0].optoins'",
        ),
    ],
)
def test_a_pipeline_s_field_is_named_as_the_docs_write_it(
    api: TestClient, key: str, files: FileServices, body: dict[str, Any], says: str
) -> None:
    """inputs[0].url, as every other message and the docs, not the validation library's inputs.0.url; and no
    "Value error, " before a validator's own message."""
    response = api.post(PIPELINES, json=body, headers=bearer(key))
    assert response.status_code == 400, response.text
    assert says in response.json()["message"] and "Value error" not in response.json()["message"]


def test_a_private_url_input_is_refused_when_deployed(api: TestClient, key: str, files: FileServices) -> None:
    import dataclasses

    from fileapi.services import use_file_services

    deployed = dataclasses.replace(files, settings=dataclasses.replace(files.settings, urls_allow_loopback=False))
    use_file_services(deployed)
    try:
        before = used(api, key)
        for url in ("http://169.254.169.254/latest", "https://[::ffff:127.0.0.1]/a.pdf", "https://2130706433/a.pdf"):
            response = api.post(
                PIPELINES, json={"inputs": [{"url": url}], "stages": [{"run": "pdf/info"}]}, headers=bearer(key)
            )
            assert response.status_code == 400 and "inputs[0].url" in response.json()["message"], response.text
        assert used(api, key) == before
    finally:
        use_file_services(files)


def test_prefer_wait_answers_the_finished_operation(
    api: TestClient, key: str, files: FileServices, executor_consumer: QueueConsumer
) -> None:
    upload = upload_file(api, key, pdf_with_pages(1), content_type="application/pdf")
    threading.Timer(0.5, executor_consumer.poll_once).start()
    response = api.post(
        PIPELINES,
        json={"inputs": [{"upload": upload}], "stages": [{"run": "pdf/info"}]},
        headers={**bearer(key), "Prefer": "wait=20"},
    )
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "succeeded" and response.json()["details"]["pageCount"] == 1


def test_an_idempotency_key_repeat_is_charged_once(
    api: TestClient, key: str, files: FileServices, executor_consumer: QueueConsumer
) -> None:
    upload = upload_file(api, key, pdf_with_pages(1), content_type="application/pdf")
    body = {
        "inputs": [{"upload": upload}],
        "stages": [{"run": "pdf/rotate", "options": {"degrees": 180}}, {"run": "pdf/info"}],
    }
    before = used(api, key)
    first = submitted(api, key, body, **{"Idempotency-Key": "pipeline-1"})
    again = submitted(api, key, body, **{"Idempotency-Key": "pipeline-1"})
    assert first["id"] == again["id"] and used(api, key) == before + 2


def test_cancelling_a_pipeline_stops_its_url_fetch_at_once(
    api: TestClient, key: str, files: FileServices, executor_consumer: QueueConsumer
) -> None:
    """A URL that drips its bytes: DELETE during the fetch ends the run and shuts the fetch's connection, long before
    the input would have come (the fetch blocked the operation's watch, which saw the cancel only at its end, and
    the account's next operation ran beside the download meanwhile)."""
    started, closed, sent = threading.Event(), threading.Event(), [0]
    total = 200  # bytes, one each 0.1 s: 20 s to come whole

    class Dripping(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", str(total))
            self.end_headers()
            started.set()
            try:
                for _ in range(total):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    sent[0] += 1
                    time.sleep(0.1)
            except OSError:  # the client shut its end
                pass
            closed.set()

        def log_message(self, *_: Any) -> None:
            return

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Dripping)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/slow.bin"
        operation = submitted(api, key, {"inputs": [{"url": url}], "stages": [{"run": "file/hash"}]})
        runner = threading.Thread(target=executor_consumer.poll_once)
        runner.start()
        assert started.wait(10)
        assert api.delete(f"/v1/operations/{operation['id']}", headers=bearer(key)).status_code == 204
        runner.join(timeout=10)
        assert not runner.is_alive()  # the run ended with the cancel, not with the input
        assert closed.wait(5) and sent[0] < total // 2  # the connection was shut while it dripped
        assert shown(api, key, operation["id"])["status"] == "cancelled"
    finally:
        server.shutdown()
        server.server_close()
