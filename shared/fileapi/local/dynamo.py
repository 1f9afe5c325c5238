"""A local DynamoDB-compatible endpoint: moto's server, one request at a time.

moto's backend holds no per-item lock, so it is served single-threaded: each request
(a conditional update included) then runs alone, as atomically as in DynamoDB.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING

from fileapi.local import endpoint_state
from fileapi.setting_variables import LOCAL_DYNAMODB_READ_TIMEOUT_SECONDS
from fileapi.settings import child_environment
from fileapi.storage.connect import open_table
from fileapi.storage.table import LOCAL_CONNECT_TIMEOUT_SECONDS, DynamoTable, create_client, create_table

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

LOCAL_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "local",
    "AWS_SECRET_ACCESS_KEY": "local",
    "AWS_DEFAULT_REGION": "us-east-1",
}


def local_table(table_name: str, endpoint: str) -> DynamoTable:
    """The table `table_name` on the local endpoint, created if absent, read with the local read timeout
    (the endpoint answers one request at a time, as `fileapi run` uses it)."""
    table = open_table(
        table_name, region="us-east-1", endpoint_url=endpoint, read_timeout=LOCAL_DYNAMODB_READ_TIMEOUT_SECONDS
    )
    create_table(table.client, table.table_name)
    return table


def local_client(endpoint: str) -> DynamoDBClient:
    """A client of the local endpoint with the local timeouts, for tools that count or inspect its calls: at
    DynamoDB's 0.5 s a call to moto's server on a loaded machine times out, and its outcome is unknown."""
    return create_client(
        region="us-east-1",
        endpoint_url=endpoint,
        read_timeout=LOCAL_DYNAMODB_READ_TIMEOUT_SECONDS,
        connect_timeout=LOCAL_CONNECT_TIMEOUT_SECONDS,
    )


def serve(host: str, port: int, *, state_path: Path | None = None) -> None:
    """Serve moto's DynamoDB (and S3, SQS) on host:port until SIGINT or SIGTERM (blocking, single-threaded).

    :param state_path: load the data saved there when it starts, and save it there when it stops
        (fileapi.local.endpoint_state); None: start empty, keep nothing.
    """
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
    from werkzeug.serving import make_server

    if state_path is not None:
        endpoint_state.load_state(state_path)
    app = DomainDispatcherApplication(create_backend_app)
    server = make_server(host, port, app, threaded=False)
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass  # Ctrl-C or SIGTERM: stop quietly
    finally:
        # A second signal (the runner's SIGTERM after the terminal's Ctrl-C) must not cut the save short.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        if state_path is not None:
            endpoint_state.save_state(state_path)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def start_process(
    host: str = "127.0.0.1", port: int | None = None, *, timeout_seconds: float = 30, state_path: Path | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """Start the endpoint in a child process (ending with this one); return it and its URL once it answers.

    :param state_path: where it loads its data from and saves it to when it stops (see `serve`).
    """
    port = port or free_port(host)
    env = child_environment(**LOCAL_CREDENTIALS)
    state = [str(state_path)] if state_path is not None else []
    process = subprocess.Popen(
        [sys.executable, "-m", "fileapi.local.dynamo", host, str(port), str(os.getpid()), *state],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://{host}:{port}"
    deadline = time.monotonic() + timeout_seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the local DynamoDB endpoint exited with {process.returncode}")
        try:
            urllib.request.urlopen(url, timeout=1).close()
            return process, url
        except urllib.error.HTTPError:
            return process, url  # it answers (moto says 4xx to a bare GET)
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"the local DynamoDB endpoint did not answer on {url} within {timeout_seconds} s")


def exit_with_parent(parent_pid: int, poll_seconds: float = 0.5) -> None:
    """End this process when `parent_pid` is gone (however the parent died): as SIGTERM would end it."""

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(poll_seconds)
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(60)  # the time a save may take (`serve`), then end regardless
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


if __name__ == "__main__":
    if len(sys.argv) > 3:
        exit_with_parent(int(sys.argv[3]))
    serve(sys.argv[1], int(sys.argv[2]), state_path=Path(sys.argv[4]) if len(sys.argv) > 4 else None)
