"""Environment variables are read in two modules, fileapi/setting_variables.py (their declarations) and
fileapi/settings.py (the process's settings, and what a child process inherits): every other module of the
service and its local tools gets them from `Settings` (the local CLI may still set variables for the server
it runs in its own process)."""

from __future__ import annotations

import ast
from pathlib import Path

from fileapi.local.template import PROJECT_ROOT

READERS = (
    PROJECT_ROOT / "shared" / "fileapi" / "setting_variables.py",
    PROJECT_ROOT / "shared" / "fileapi" / "settings.py",
)


def _environment_reads(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    reads = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "os":
            if node.attr == "getenv":
                reads.append(node.lineno)
            elif node.attr == "environ":
                parent = parents.get(node)
                written = isinstance(parent, ast.Subscript) and isinstance(parent.ctx, ast.Store | ast.Del)
                set_default = isinstance(parent, ast.Attribute) and parent.attr == "setdefault"
                if not (written or set_default):
                    reads.append(node.lineno)
    return reads


def test_only_the_settings_module_reads_the_environment() -> None:
    sources = [*(PROJECT_ROOT / "shared" / "fileapi").rglob("*.py"), *(PROJECT_ROOT / "functions").rglob("*.py")]
    readers = {
        str(path.relative_to(PROJECT_ROOT)): lines
        for path in sources
        if path not in READERS and (lines := _environment_reads(path))
    }
    assert readers == {}
    assert all(_environment_reads(path) for path in READERS)  # the check sees a read where there is one
