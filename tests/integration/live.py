"""The running API the integration tests call: FILEAPI_BASE_URL and FILEAPI_API_KEY (a deployed stack in
CI after each deploy, or `fileapi run`); without both, every integration test is skipped."""

from __future__ import annotations

import os

import pytest

BASE_URL = os.environ.get("FILEAPI_BASE_URL", "").rstrip("/")
API_KEY = os.environ.get("FILEAPI_API_KEY", "")

LIVE = [
    pytest.mark.integration,
    pytest.mark.skipif(not (BASE_URL and API_KEY), reason="FILEAPI_BASE_URL and FILEAPI_API_KEY are not set"),
]
