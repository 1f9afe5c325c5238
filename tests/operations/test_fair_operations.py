"""Operations are fair: queued in their account's message group, run at most as many at once per account as its plan
allows (the rest go back to the queue, in the account's own turn), and report how long their work ran."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient

from fileapi.file_services import FileServices
from fileapi.local.template import PROJECT_ROOT
from fileapi.metering.plans import MAX_RUNNING_OPERATIONS, max_running_operations
from fileapi.metering.storage import AccountStore
from fileapi.models.files import OperationStatus
from fileapi.operations.executor import BUSY_DELAY_SECONDS, Executor
from tests.conftest import MakeKey
from tests.operations.conftest import account_of, bearer
from tests.operations.helpers import accepted, pdf_with_pages, shown, upload_file


def split_of_one_page(api: TestClient, key: str) -> dict[str, Any]:
    upload = upload_file(api, key, pdf_with_pages(1), content_type="application/pdf")
    return accepted(api, key, "/v1/pdf/split", [upload], ranges="1")


def queued(files: FileServices) -> list[dict[str, Any]]:
    """The operations queue's messages (visible or delayed), each as its body and its message group."""
    assert files.settings.operations_queue_url is not None
    sqs = files.operations.sqs
    received = sqs.receive_message(
        QueueUrl=files.settings.operations_queue_url,
        MaxNumberOfMessages=10,
        WaitTimeSeconds=0,
        MessageSystemAttributeNames=["MessageGroupId"],
    )
    return [
        {**json.loads(message["Body"]), "group": message.get("Attributes", {}).get("MessageGroupId")}
        for message in received.get("Messages", [])
    ]


def event_of(operation_id: str) -> dict[str, Any]:
    body = json.dumps({"operation": operation_id})
    return {"Records": [{"messageId": "m-1", "body": body, "attributes": {"ApproximateReceiveCount": "1"}}]}


def test_an_operation_is_queued_in_its_accounts_message_group(
    api: TestClient, key: str, store: AccountStore, files: FileServices
) -> None:
    operation = split_of_one_page(api, key)
    assert queued(files) == [{"operation": operation["id"], "group": account_of(store, key)}]


def test_each_plan_runs_fewer_operations_at_once_than_the_operations_functions_default_concurrency() -> None:
    assert max(MAX_RUNNING_OPERATIONS.values()) < 5  # OperationsConcurrency's default
    custom = max_running_operations("a-custom-contract")
    assert custom == max(MAX_RUNNING_OPERATIONS.values())
    # docs/api.md states the figures
    listed = ", ".join(f"{plan} {most}" for plan, most in MAX_RUNNING_OPERATIONS.items())
    text = " ".join((PROJECT_ROOT / "docs" / "api.md").read_text().split())
    assert f"({listed}; a custom plan {custom})" in text


def test_an_operation_over_its_accounts_places_goes_back_to_the_queue_and_runs_in_its_turn(
    api: TestClient, make_key: MakeKey, files: FileServices, executor: Executor
) -> None:
    # GIVEN a starter account (one operation at a time) whose first operation is running
    key = make_key(plan="starter")
    first, second = split_of_one_page(api, key), split_of_one_page(api, key)
    queued(files)  # the two messages are taken (this test hands the executor their events)
    running = files.operations.store.get_operation(first["id"])
    assert running is not None and running.max_running == 1
    assert files.operations.claim_run(running)
    # WHEN the second one's message comes
    answer = executor.handle(event_of(second["id"]))
    # THEN it is not run, nor failed: a new message, delayed, takes it back to the queue (its receive count anew)
    assert answer == {"batchItemFailures": []}
    assert shown(api, key, second["id"])["status"] == "running"
    assert (
        files.operations.sqs.get_queue_attributes(
            QueueUrl=files.settings.operations_queue_url or "", AttributeNames=["ApproximateNumberOfMessagesDelayed"]
        )["Attributes"]["ApproximateNumberOfMessagesDelayed"]
        == "1"
    )
    assert BUSY_DELAY_SECONDS <= 10
    # AND once the first has ended, it runs
    files.operations.release_run(running)
    ended = executor.run(second["id"])
    assert ended is not None and ended.status is OperationStatus.SUCCEEDED


def test_a_place_left_by_a_run_that_died_is_taken_back_once_its_operation_has_ended(
    api: TestClient, make_key: MakeKey, files: FileServices, executor: Executor
) -> None:
    key = make_key(plan="starter")
    first, second = split_of_one_page(api, key), split_of_one_page(api, key)
    dead = files.operations.store.get_operation(first["id"])
    assert dead is not None and files.operations.claim_run(dead)  # its process died without releasing it
    files.operations.store.fail(first["id"], code="too_large", message="stopped 3 times")
    ended = executor.run(second["id"])
    assert ended is not None and ended.status is OperationStatus.SUCCEEDED


def test_an_ended_operation_says_how_long_its_work_ran(api: TestClient, key: str, executor: Executor) -> None:
    operation = split_of_one_page(api, key)
    assert "ranSeconds" not in shown(api, key, operation["id"])
    executor.run(operation["id"])
    ended = shown(api, key, operation["id"])
    assert ended["status"] == "succeeded" and 0 < ended["ranSeconds"] < 60


def test_a_cancelled_operation_that_never_ran_reports_no_time(
    api: TestClient, key: str, files: FileServices, executor: Executor
) -> None:
    operation = split_of_one_page(api, key)
    assert api.delete(f"/v1/operations/{operation['id']}", headers=bearer(key)).status_code == 204
    executor.run(operation["id"])
    assert "ranSeconds" not in shown(api, key, operation["id"])
