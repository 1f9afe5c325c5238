"""What a running `fileapi run` leaves in the state folder for the other commands: its base URL and its DynamoDB
endpoint (`run.json`, removed when it stops)."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request

from fileapi.local import dynamo
from fileapi.settings import load_settings

RUN_STATE_FILE = "run.json"


def write_run_state(*, base_url: str, endpoint: str) -> None:
    """Note the running API's base URL and DynamoDB endpoint."""
    path = load_settings().state_dir / RUN_STATE_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"base_url": base_url, "dynamodb_endpoint": endpoint}))


def clear_run_state() -> None:
    (load_settings().state_dir / RUN_STATE_FILE).unlink(missing_ok=True)


def running_base_url() -> str | None:
    """The base URL of the `fileapi run` noted in the state folder (None: none is)."""
    try:
        return str(json.loads((load_settings().state_dir / RUN_STATE_FILE).read_text())["base_url"])
    except (OSError, ValueError, KeyError):
        return None


def running_endpoint() -> str | None:
    """The DynamoDB endpoint of a running `fileapi run`, if there is one that answers."""
    try:
        state = json.loads((load_settings().state_dir / RUN_STATE_FILE).read_text())
        endpoint = str(state["dynamodb_endpoint"])
        urllib.request.urlopen(endpoint, timeout=1).close()  # noqa: S310 (loopback only)
    except urllib.error.HTTPError:
        return endpoint
    except (OSError, ValueError, KeyError):
        return None
    return endpoint


def use_local_credentials() -> None:
    """The fixed credentials of the local endpoint, where none are set (a local endpoint checks none)."""
    for name, value in dynamo.LOCAL_CREDENTIALS.items():
        os.environ.setdefault(name, value)
