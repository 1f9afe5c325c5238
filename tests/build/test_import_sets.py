"""Each function's cold import loads only what its routes need (tests.cold_imports): its `app` module is
imported in a fresh interpreter, as Lambda imports it, and every module then loaded that is outside the
standard library must be in the function's allowed set."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from fileapi.local.template import PROJECT_ROOT, FunctionSpec, load_functions
from tests.cold_imports import ALLOWED, allowed

FUNCTIONS = load_functions()
STANDARD_LIBRARY = frozenset(sys.stdlib_module_names)


def modules_after_import(spec: FunctionSpec) -> list[str]:
    """sys.modules of a fresh interpreter after importing the function's handler module (its CodeUri and the
    shared layer first on sys.path, as in Lambda)."""
    module = spec.handler.rpartition(".")[0]
    code = (
        f"import sys, json; sys.path[:0] = [{str(spec.code_dir)!r}, {str(PROJECT_ROOT / 'shared')!r}]; "
        f"import {module}; print(json.dumps(sorted(sys.modules)))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/", check=True)
    names: list[str] = json.loads(result.stdout)
    return [name for name in names if name != module]


def outside_standard_library(name: str) -> bool:
    top = name.partition(".")[0]
    return top not in STANDARD_LIBRARY and not top.startswith("_")


def test_every_function_has_a_declared_set() -> None:
    assert {spec.code_dir.name for spec in FUNCTIONS} == set(ALLOWED)


@pytest.mark.parametrize("spec", FUNCTIONS, ids=[spec.logical_id for spec in FUNCTIONS])
def test_cold_import_stays_within_the_allowed_set(spec: FunctionSpec) -> None:
    patterns = ALLOWED[spec.code_dir.name]
    loaded = [name for name in modules_after_import(spec) if outside_standard_library(name)]
    # FastAPI's v1-model check imports it (45 ms) for each route it declares: apps serve ServedRoutes (web.served)
    assert "pydantic.v1" not in loaded
    unexpected = sorted(name for name in loaded if not allowed(name, patterns))
    assert not unexpected, (
        f"{spec.logical_id} imports {unexpected} at cold start: import them inside the functions that use "
        "them (docs/request-path.md, 'Where imports go'), or add them to tests.cold_imports.ALLOWED"
    )


def test_the_rule_reaches_the_heavy_libraries() -> None:
    """The patterns let none of the libraries a function must load on first use pass at cold start."""
    heavy = ["PIL.Image", "pypdfium2", "pikepdf", "pypdf", "zxingcpp", "segno", "comrak", "boto3", "botocore.session"]
    heavy += [
        "fileapi.metering.dynamo.connect",
        "fileapi.storage.table",
        "fileapi.account.billing",
        "aws_xray_sdk",
    ]
    for name, patterns in ALLOWED.items():
        assert not [module for module in heavy if allowed(module, patterns)], name
    assert not allowed("fastapi", ALLOWED["health"])
