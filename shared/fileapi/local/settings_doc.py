"""The settings table of docs/operations.md, printed from the declarations in fileapi.settings
(`fileapi settings` prints it, `fileapi settings --write` puts it in the doc; a test compares them)."""

from __future__ import annotations

from pathlib import Path

from fileapi.local.template import PROJECT_ROOT
from fileapi.setting_variables import VARIABLES, Variable

OPERATIONS_DOC = PROJECT_ROOT / "docs" / "operations.md"
SECTION = "## Settings (environment variables)"
HEADER = "| variable | type | default | meaning |\n|---|---|---|---|\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _default(variable: Variable) -> str:
    if variable.default_note:
        return variable.default_note
    return "(none)" if variable.default is None else f"`{variable.default}`"


def settings_table() -> str:
    """The Markdown table: one row per environment variable, in the declarations' order."""
    rows = (
        f"| `{variable.name}` | {variable.type} | {_cell(_default(variable))} | {_cell(variable.meaning)} |\n"
        for variable in VARIABLES
    )
    return HEADER + "".join(rows)


def _table_span(text: str) -> tuple[int, int]:
    """Where the table of the settings section starts and ends in the doc's text."""
    section = text.index(SECTION)
    start = text.index("\n|", section) + 1
    end = start
    while end < len(text) and text.startswith("|", end):
        end = text.index("\n", end) + 1
    return start, end


def documented_table(path: Path = OPERATIONS_DOC) -> str:
    """The settings table as docs/operations.md has it."""
    text = path.read_text(encoding="utf-8")
    start, end = _table_span(text)
    return text[start:end]


def write_settings_table(path: Path = OPERATIONS_DOC) -> None:
    """Replace the doc's settings table with the one printed from the declarations."""
    text = path.read_text(encoding="utf-8")
    start, end = _table_span(text)
    path.write_text(text[:start] + settings_table() + text[end:], encoding="utf-8")
