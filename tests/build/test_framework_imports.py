"""Own what we rely on: the service imports only the documented modules of its frameworks (FastAPI, Starlette,
pydantic, Mangum, Powertools), and one private module in one place, guarded (web/fastapi_compat.py)."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from fileapi.web import fastapi_compat

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
# The one private module, where it may be named, and only by name (importlib), so that its absence is handled.
PRIVATE_ALLOWED = {"fastapi._compat.shared": PROJECT_ROOT / "shared" / "fileapi" / "web" / "fastapi_compat.py"}


def sources() -> list[Path]:
    return sorted([*(PROJECT_ROOT / "shared" / "fileapi").rglob("*.py"), *(PROJECT_ROOT / "functions").rglob("*.py")])


def framework_imports(path: Path) -> set[str]:
    """Every framework module `path` imports (at any depth, TYPE_CHECKING blocks too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return {name for name in found if name.split(".")[0] in FRAMEWORKS}


def named_private_modules(path: Path) -> set[str]:
    """Strings in `path` that name a private module of a framework."""
    return {
        node.value
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.split(".")[0] in FRAMEWORKS
        and any(part.startswith("_") for part in node.value.split("."))
    }


@pytest.mark.parametrize("path", sources(), ids=lambda path: str(path.relative_to(PROJECT_ROOT)))
def test_only_documented_framework_modules_are_imported(path: Path) -> None:
    imported = framework_imports(path)
    assert imported <= set(DOCUMENTED), f"undocumented or private: {sorted(imported - set(DOCUMENTED))}"
    for name in named_private_modules(path):
        assert PRIVATE_ALLOWED.get(name) == path, f"{name} named in {path.name}"


def test_the_pydantic_v1_shortcut_steps_aside_when_fastapi_has_no_such_check(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str, package: str | None = None) -> object:
        raise ModuleNotFoundError(name)

    monkeypatch.setattr(importlib, "import_module", missing)
    assert fastapi_compat.skip_pydantic_v1_import() is False


def test_the_pydantic_v1_shortcut_answers_without_importing_pydantic_v1() -> None:
    code = (
        "import sys\n"
        "from fileapi.web import fastapi_compat\n"
        "from pydantic import BaseModel\n"
        "shared = sys.modules[fastapi_compat.PRIVATE_MODULE]\n"
        "check = getattr(shared, fastapi_compat.CHECK)\n"
        "print(check.__module__, check(BaseModel), 'pydantic.v1' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert result.stdout.split() == ["fileapi.web.fastapi_compat", "False", "False"]
