"""docs/operations.md's settings table is the one `fileapi settings` prints from the declarations in
fileapi.settings, and every environment variable that module names is declared there."""

from __future__ import annotations

import ast
import re
import subprocess
import sys

from fileapi.local.settings_doc import documented_table, settings_table
from fileapi.local.template import PROJECT_ROOT
from fileapi.setting_variables import VARIABLES

SETTINGS = PROJECT_ROOT / "shared" / "fileapi" / "setting_variables.py"


def test_operations_doc_has_the_table_the_command_prints() -> None:
    printed = subprocess.run(
        [sys.executable, "-m", "fileapi.local.cli", "settings"], capture_output=True, text=True, check=True
    ).stdout
    assert printed == settings_table()
    assert documented_table() == printed, "docs/operations.md's settings table is stale: run `make openapi`"


def test_every_variable_the_declarations_module_names_is_declared() -> None:
    names = {
        node.value
        for node in ast.walk(ast.parse(SETTINGS.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and re.fullmatch(r"(FILEAPI|AWS|POWERTOOLS)_[A-Z0-9_]+", node.value)
    }
    declared = [variable.name for variable in VARIABLES]
    assert len(declared) == len(set(declared))
    assert names == set(declared)
