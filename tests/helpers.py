"""Helpers for tests: auth headers and the shared corpus."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


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
