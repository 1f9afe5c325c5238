"""`redocly lint` with the recommended rules (redocly.yaml) passes the OpenAPI document with 0 errors and
0 warnings; the few places where a rule does not fit are ignored one by one in .redocly.lint-ignore.yaml."""

from __future__ import annotations

import json
import subprocess

import pytest
import yaml

from fileapi.local.template import PROJECT_ROOT
from fileapi.web.spec import OPENAPI_PATH
from tests.helpers import require_tool

REDOCLY = PROJECT_ROOT / "clients" / "node" / "node_modules" / ".bin" / "redocly"


def test_redocly_lint_finds_no_error_and_no_warning() -> None:
    require_tool("node")
    if not REDOCLY.exists():
        pytest.skip("@redocly/cli is not installed in clients/node: run `make node`")
    done = subprocess.run(
        [str(REDOCLY), "lint", str(OPENAPI_PATH.relative_to(PROJECT_ROOT)), "--format", "json"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = json.loads(done.stdout)
    problems = [
        f"{p['severity']} {p['ruleId']}: {p['message']} at {p['location'][0]['pointer']}" for p in report["problems"]
    ]
    assert report["totals"]["errors"] == report["totals"]["warnings"] == 0, "\n".join(problems)
    ignored = yaml.safe_load((PROJECT_ROOT / ".redocly.lint-ignore.yaml").read_text(encoding="utf-8"))
    places = sum(len(pointers) for pointers in ignored[str(OPENAPI_PATH.relative_to(PROJECT_ROOT))].values())
    assert report["totals"]["ignored"] == places, "an ignored place no longer breaks its rule: drop it from the file"
