"""Own what we rely on: the service imports only the documented modules of its frameworks (FastAPI, Starlette,
pydantic, Mangum, Powertools), and no code of the repository names a private module of theirs, by an import or by
name (a string such as "fastapi._compat" given to importlib or sys.modules, or an attribute such as
`fastapi._compat`)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[2]
FRAMEWORKS = ("fastapi", "starlette", "pydantic", "pydantic_core", "mangum", "aws_lambda_powertools")
# Each module the service may import, and where its documentation shows it.
DOCUMENTED = {
    "fastapi": "https://fastapi.tiangolo.com/reference/",
    "fastapi.exceptions": "https://fastapi.tiangolo.com/reference/exceptions/",
    "fastapi.openapi.utils": "https://fastapi.tiangolo.com/how-to/extending-openapi/",
    "fastapi.routing": "https://fastapi.tiangolo.com/how-to/custom-request-and-route/",
    "fastapi.security": "https://fastapi.tiangolo.com/reference/security/",
    "starlette.applications": "https://www.starlette.io/applications/",
    "starlette.concurrency": "https://www.starlette.io/threadpool/",
    "starlette.datastructures": "https://www.starlette.io/requests/",
    "starlette.exceptions": "https://www.starlette.io/exceptions/",
    "starlette.requests": "https://www.starlette.io/requests/",
    "starlette.responses": "https://www.starlette.io/responses/",
    "starlette.routing": "https://www.starlette.io/routing/",
    "starlette.types": "https://www.starlette.io/middleware/#pure-asgi-middleware",
    "pydantic": "https://docs.pydantic.dev/latest/api/base_model/",
    "pydantic.alias_generators": "https://docs.pydantic.dev/latest/api/config/#pydantic.alias_generators",
    # PydanticCustomError (a validator's own error type and message) and InitErrorDetails
    "pydantic_core": "https://docs.pydantic.dev/latest/api/pydantic_core/",
    "mangum": "https://mangum.fastapiexpert.com/adapter/",
    "aws_lambda_powertools": "https://docs.powertools.aws.dev/lambda/python/latest/core/logger/",
    "aws_lambda_powertools.logging": "https://docs.powertools.aws.dev/lambda/python/latest/core/logger/",
    "aws_lambda_powertools.metrics": "https://docs.powertools.aws.dev/lambda/python/latest/core/metrics/",
    "aws_lambda_powertools.utilities": "https://docs.powertools.aws.dev/lambda/python/latest/utilities/parameters/",
}


# A dotted name with a private part (`_compat`; not a dunder such as `__version__`) under a framework's package.
PRIVATE_NAME = re.compile(rf"\b(?:{'|'.join(FRAMEWORKS)})(?:\.\w+)*?\.(?!__)_\w*")
PRIVATE_PART = re.compile(r"(?!__)_")
# Where the code that runs lives: the service, and what builds, measures and drives it (tests are left out: this
# module names private modules to show what is refused).
CODE_DIRECTORIES = ("shared", "functions", "bench", "tools", "clients", "examples", ".ci")


def sources() -> list[Path]:
    return sorted([*(PROJECT_ROOT / "shared" / "fileapi").rglob("*.py"), *(PROJECT_ROOT / "functions").rglob("*.py")])


def framework_imports(path: Path) -> set[str]:
    """Every framework module `path` imports (at any depth, TYPE_CHECKING blocks too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)  # and a private module taken from it (`from fastapi import _compat`)
            found.update(f"{node.module}.{alias.name}" for alias in node.names if PRIVATE_PART.match(alias.name))
    return {name for name in found if name.split(".")[0] in FRAMEWORKS}


def code_sources() -> list[Path]:
    found = (path for directory in CODE_DIRECTORIES for path in (PROJECT_ROOT / directory).rglob("*.py"))
    return sorted(path for path in found if "node_modules" not in path.parts)


def named_private_modules(source: str) -> set[str]:
    """The private framework modules `source` names: in a string (any part of one, an f-string's too) or as a
    dotted attribute of a framework's package."""
    named: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            named.update(match.group(0) for match in PRIVATE_NAME.finditer(node.value))
        elif isinstance(node, ast.Attribute):
            dotted = _dotted(node)
            if dotted is not None and PRIVATE_NAME.fullmatch(dotted):
                named.add(dotted)
    return named


def _dotted(node: ast.expr) -> str | None:
    """`a.b.c` of a chain of attributes on a name, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else None


@pytest.mark.parametrize("path", sources(), ids=lambda path: str(path.relative_to(PROJECT_ROOT)))
def test_only_documented_framework_modules_are_imported(path: Path) -> None:
    imported = framework_imports(path)
    assert imported <= set(DOCUMENTED), f"undocumented or private: {sorted(imported - set(DOCUMENTED))}"


def test_no_code_names_a_private_framework_module() -> None:
    named = {
        str(path.relative_to(PROJECT_ROOT)): found
        for path in code_sources()
        if (found := named_private_modules(path.read_text(encoding="utf-8")))
    }
    assert named == {}


@pytest.mark.parametrize(
    "source",
    [
        'importlib.import_module("fastapi._compat.shared")',
        'sys.modules["pydantic._internal._generate_schema"]',
        'f"from starlette._utils import {name}"',
        "import fastapi\nfastapi._compat.shared.is_pydantic_v1_model_class = None",
    ],
)
def test_a_private_module_named_is_found(source: str) -> None:
    assert named_private_modules(source)


def test_a_private_module_imported_from_its_package_is_found(tmp_path: Path) -> None:
    source = tmp_path / "module.py"
    source.write_text("from fastapi import _compat, routing\n", encoding="utf-8")
    assert framework_imports(source) == {"fastapi", "fastapi._compat"}


def test_public_names_are_not_taken_for_private_ones() -> None:
    source = 'import fastapi\nfastapi.__version__\nmodule = "fastapi.routing"\nkey = "_X_AMZN_TRACE_ID"\n'
    assert named_private_modules(source) == set()
