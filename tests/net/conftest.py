"""The local HTTP server of the network-edge tests, and the policy they reach it under."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fileapi.net.addresses import EgressPolicy
from tests.net.servers import LocalServer

LOCAL = EgressPolicy(local=True)  # as `make run`: loopback and http:// allowed


@pytest.fixture()
def server() -> Iterator[LocalServer]:
    """A threaded HTTP server on a free port of 127.0.0.1 (tests/net/servers.py lists its paths)."""
    running = LocalServer()
    yield running
    running.close()
