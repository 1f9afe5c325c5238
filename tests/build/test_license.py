"""One licence for the whole project: LICENSE, the OpenAPI document's `info.license` and every package."""

from __future__ import annotations

import json
import tomllib

import pytest

from fileapi.local.template import PROJECT_ROOT
from fileapi.web.docs import LICENSE_INFO
from fileapi.web.spec import OPENAPI_PATH

LICENSE_TEXT = (PROJECT_ROOT / "LICENSE").read_text(encoding="utf-8")
PYTHON_PACKAGES = ["pyproject.toml", "clients/python/pyproject.toml", "clients/mcp/pyproject.toml"]


def test_the_license_file_is_the_mit_licence() -> None:
    assert LICENSE_TEXT.startswith("MIT License\n\nCopyright (c) ")
    assert "Permission is hereby granted, free of charge, to any person obtaining a copy" in LICENSE_TEXT


def test_the_document_declares_the_licence_by_its_spdx_identifier() -> None:
    info = json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))["info"]
    assert info["license"] == LICENSE_INFO == {"name": "MIT", "identifier": "MIT"}


@pytest.mark.parametrize("manifest", PYTHON_PACKAGES)
def test_each_python_package_declares_the_licence_and_ships_its_text(manifest: str) -> None:
    path = PROJECT_ROOT / manifest
    project = tomllib.loads(path.read_text(encoding="utf-8"))["project"]
    assert (project["license"], project["license-files"]) == (LICENSE_INFO["identifier"], ["LICENSE"])
    assert (path.parent / "LICENSE").read_text(encoding="utf-8") == LICENSE_TEXT


def test_the_node_package_declares_the_licence_and_ships_its_text() -> None:
    folder = PROJECT_ROOT / "clients" / "node"
    package = json.loads((folder / "package.json").read_text(encoding="utf-8"))
    assert package["license"] == LICENSE_INFO["identifier"]
    assert (folder / "LICENSE").read_text(encoding="utf-8") == LICENSE_TEXT  # npm packs a LICENSE file always
