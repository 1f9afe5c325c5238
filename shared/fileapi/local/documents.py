"""The `fileapi` commands that write the project's generated documents: the OpenAPI document, the settings
table of docs/operations.md, and the files derived from the catalogue (template routes, events, docs tables)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

Commands = Any  # argparse's sub-parser action (its type is private to argparse)


def add_commands(commands: Commands) -> None:
    """openapi and settings on `commands`."""
    openapi = commands.add_parser("openapi", help="print the OpenAPI document built from the functions")
    openapi.add_argument("--write", action="store_true", help="write it to shared/fileapi/openapi.json")
    openapi.set_defaults(command=cmd_openapi)
    settings = commands.add_parser(
        "settings", help="print the table of environment variables (docs/operations.md) from fileapi.settings"
    )
    settings.add_argument("--write", action="store_true", help="write it into docs/operations.md")
    settings.set_defaults(command=cmd_settings)
    catalogue = commands.add_parser(
        "catalogue", help="list the files derived from the catalogue that are stale (template routes, events, docs)"
    )
    catalogue.add_argument("--write", action="store_true", help="write them")
    catalogue.set_defaults(command=cmd_catalogue)


def cmd_openapi(args: argparse.Namespace) -> int:
    from fileapi.local.server import function_app
    from fileapi.local.template import load_functions
    from fileapi.web.docs import build_openapi
    from fileapi.web.spec import OPENAPI_PATH

    text = render_openapi(build_openapi(function_app(spec) for spec in load_functions()))
    if args.write:
        Path(OPENAPI_PATH).write_text(text, encoding="utf-8")
        print(OPENAPI_PATH)
    else:
        sys.stdout.write(text)
    return 0


def cmd_settings(args: argparse.Namespace) -> int:
    from fileapi.local.settings_doc import OPERATIONS_DOC, settings_table, write_settings_table

    if args.write:
        write_settings_table()
        print(OPERATIONS_DOC)
    else:
        sys.stdout.write(settings_table())
    return 0


def cmd_catalogue(args: argparse.Namespace) -> int:
    from fileapi.local.catalogue_files import stale, write

    paths = write() if args.write else stale()
    for path in paths:
        print(path)
    return 1 if paths and not args.write else 0


def render_openapi(spec: dict[str, object]) -> str:
    """The committed text form of the OpenAPI document."""
    return json.dumps(spec, indent=2, ensure_ascii=False, sort_keys=False) + "\n"
