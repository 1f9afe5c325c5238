"""`fileapi`: run the API on a laptop (local.runner), administer a metering table, local or deployed
(local.table_admin), and write the generated documents (local.documents).

fileapi run                 local DynamoDB endpoint + the whole API (what `make run` does)
fileapi serve               the API only, against FILEAPI_DYNAMODB_ENDPOINT (or AWS)
fileapi dynamodb            the local DynamoDB endpoint only
fileapi keys create ...     create an account with a new key; prints only the key
fileapi keys generate       print a new random key (stores nothing)
fileapi checkout ...        the local billing stand-in: a paid checkout (the key goes to the outbox)
fileapi plans create|list   custom plans (rate, burst, monthly quota, shards) and the contract's
fileapi tables create       create the table (local endpoints)
fileapi tables migrate      bring items of earlier layouts to the current one (idempotent)
fileapi openapi [--write]   print or regenerate shared/fileapi/openapi.json
fileapi settings [--write]  print the environment variables' table (or write it into docs/operations.md)
"""

from __future__ import annotations

import argparse

from fileapi.local import documents, runner, table_admin


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "command"):
        parser.print_help()
        return 2
    result: int = args.command(args)
    return result


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fileapi", description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    commands = parser.add_subparsers(title="commands")
    keys = commands.add_parser("keys", help="API keys").add_subparsers(title="keys commands")
    runner.add_commands(commands, keys)
    table_admin.add_commands(commands, keys)
    documents.add_commands(commands)
    return parser


if __name__ == "__main__":
    raise SystemExit(main())
