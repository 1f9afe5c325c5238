"""`fileapi`: run the API on a laptop, and administer keys against the configured table.

fileapi run                 local DynamoDB endpoint + the whole API (what `make run` does)
fileapi serve               the API only, against FILEAPI_DYNAMODB_ENDPOINT (or AWS)
fileapi dynamodb            the local DynamoDB endpoint only
fileapi keys create ...     create an account with a new key; prints only the key
fileapi tables create       create the table (local endpoints)
fileapi openapi [--write]   print or regenerate shared/fileapi/openapi.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.request
from dataclasses import asdict, replace
from pathlib import Path

from fileapi.local import dynamo
from fileapi.metering.accounts import Account
from fileapi.metering.admin import create_key, ensure_key
from fileapi.metering.dynamodb import DynamoStore, create_client, create_table
from fileapi.metering.plans import PLANS
from fileapi.metering.store import AccountExists
from fileapi.settings import load_settings

RUN_STATE_FILE = "run.json"


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

    run = commands.add_parser("run", help="local DynamoDB endpoint + the whole API on one port")
    _server_options(run)
    run.set_defaults(command=cmd_run)

    serve = commands.add_parser("serve", help="the API only, against the configured table")
    _server_options(serve)
    serve.set_defaults(command=cmd_serve)

    dynamodb = commands.add_parser("dynamodb", help="the local DynamoDB endpoint only (moto, single-threaded)")
    dynamodb.add_argument("--host", default="127.0.0.1")
    dynamodb.add_argument("--port", type=int, default=8000)
    dynamodb.set_defaults(command=cmd_dynamodb)

    keys = commands.add_parser("keys", help="API keys").add_subparsers(title="keys commands")
    create = keys.add_parser("create", help="create an account with a new key; prints only the key")
    create.add_argument("--email", required=True)
    create.add_argument("--plan", required=True, choices=sorted(PLANS))
    create.add_argument("--quota", type=int, help="monthly quota override")
    _store_options(create)
    create.set_defaults(command=cmd_keys_create)

    accounts = commands.add_parser("accounts", help="accounts").add_subparsers(title="accounts commands")
    listing = accounts.add_parser("list", help="one line per account: e-mail, plan, status, quota")
    _store_options(listing)
    listing.set_defaults(command=cmd_accounts_list)
    show = accounts.add_parser("show", help="an account as JSON (never its key)")
    show.add_argument("email")
    _store_options(show)
    show.set_defaults(command=cmd_accounts_show)
    set_plan = accounts.add_parser("set-plan", help="change an account's plan (and quota override)")
    set_plan.add_argument("email")
    set_plan.add_argument("plan", choices=sorted(PLANS))
    set_plan.add_argument("--quota", type=int, help="monthly quota override (omit for the plan's)")
    _store_options(set_plan)
    set_plan.set_defaults(command=cmd_accounts_set_plan)
    set_status = accounts.add_parser("set-status", help="change an account's subscription status")
    set_status.add_argument("email")
    set_status.add_argument("status", help="active, trialing, past_due, canceled, ...")
    _store_options(set_status)
    set_status.set_defaults(command=cmd_accounts_set_status)

    tables = commands.add_parser("tables", help="the metering table").add_subparsers(title="tables commands")
    tables_create = tables.add_parser("create", help="create the table if it does not exist")
    _store_options(tables_create)
    tables_create.set_defaults(command=cmd_tables_create)

    openapi = commands.add_parser("openapi", help="print the OpenAPI document built from the functions")
    openapi.add_argument("--write", action="store_true", help="write it to shared/fileapi/openapi.json")
    openapi.set_defaults(command=cmd_openapi)
    return parser


def _server_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=load_settings().port, help="default: FILEAPI_PORT or 3000")
    parser.add_argument("--workers", type=int, default=1, help="uvicorn worker processes")


def _store_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--endpoint",
        help="DynamoDB endpoint URL (default: FILEAPI_DYNAMODB_ENDPOINT, else the running `fileapi run`, else AWS)",
    )
    parser.add_argument("--table", help="table name (default: FILEAPI_TABLE or fileapi-local)")


def _store(args: argparse.Namespace) -> DynamoStore:
    settings = load_settings()
    endpoint = args.endpoint or settings.dynamodb_endpoint or _running_endpoint()
    if endpoint:
        _use_local_credentials()
    table = args.table or settings.table_name
    return DynamoStore(table, create_client(region=settings.region, endpoint_url=endpoint))


def _running_endpoint() -> str | None:
    """The DynamoDB endpoint of a running `fileapi run`, if there is one."""
    try:
        state = json.loads((load_settings().state_dir / RUN_STATE_FILE).read_text())
        endpoint = str(state["dynamodb_endpoint"])
        urllib.request.urlopen(endpoint, timeout=1).close()  # noqa: S310 (loopback only)
    except urllib.error.HTTPError:
        return endpoint
    except (OSError, ValueError, KeyError):
        return None
    return endpoint


def _use_local_credentials() -> None:
    for name, value in dynamo.LOCAL_CREDENTIALS.items():
        os.environ.setdefault(name, value)


def cmd_keys_create(args: argparse.Namespace) -> int:
    try:
        key = create_key(_store(args), email=args.email, plan=args.plan, quota=args.quota)
    except (ValueError, AccountExists) as exc:
        print(f"fileapi: {exc}", file=sys.stderr)
        return 1
    print(key)
    return 0


def _account_or_exit(store: DynamoStore, email: str) -> Account | None:
    account = store.get_account_by_email(email)
    if account is None:
        print(f"fileapi: no account for {email}", file=sys.stderr)
    return account


def _public(account: Account) -> dict[str, object]:
    fields = {name: value for name, value in asdict(account).items() if name != "key_hash"}
    fields["quota_monthly"] = account.limits.quota_monthly
    return fields


def cmd_accounts_list(args: argparse.Namespace) -> int:
    for account in sorted(_store(args).list_accounts(), key=lambda item: item.email):
        print(f"{account.email}\t{account.plan}\t{account.status}\t{account.limits.quota_monthly}")
    return 0


def cmd_accounts_show(args: argparse.Namespace) -> int:
    account = _account_or_exit(_store(args), args.email)
    if account is None:
        return 1
    print(json.dumps(_public(account), indent=2))
    return 0


def cmd_accounts_set_plan(args: argparse.Namespace) -> int:
    return _change_account(args, plan=args.plan, quota_override=args.quota)


def cmd_accounts_set_status(args: argparse.Namespace) -> int:
    return _change_account(args, status=args.status)


def _change_account(args: argparse.Namespace, **changes: object) -> int:
    store = _store(args)
    account = _account_or_exit(store, args.email)
    if account is None:
        return 1
    updated = replace(account, **changes)  # type: ignore[arg-type]
    store.update_account(updated)
    print(json.dumps(_public(updated), indent=2))
    return 0


def cmd_tables_create(args: argparse.Namespace) -> int:
    store = _store(args)
    create_table(store.client, store.table_name)
    print(store.table_name)
    return 0


def cmd_dynamodb(args: argparse.Namespace) -> int:
    print(f"DynamoDB-compatible endpoint on http://{args.host}:{args.port}", flush=True)
    dynamo.serve(args.host, args.port)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    if load_settings().dynamodb_endpoint:
        _use_local_credentials()
    _uvicorn(args)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    process, endpoint = dynamo.start_process()
    try:
        os.environ["FILEAPI_DYNAMODB_ENDPOINT"] = endpoint
        _use_local_credentials()
        settings = load_settings()
        store = DynamoStore(settings.table_name, create_client(region=settings.region, endpoint_url=endpoint))
        create_table(store.client, store.table_name)
        key = _dev_key(store)
        base_url = f"http://{args.host}:{args.port}"
        run_state = settings.state_dir / RUN_STATE_FILE
        run_state.parent.mkdir(parents=True, exist_ok=True)
        run_state.write_text(json.dumps({"base_url": base_url, "dynamodb_endpoint": endpoint}))
        settings.outbox_dir.mkdir(parents=True, exist_ok=True)
        print(f"File API on {base_url}  (DynamoDB endpoint {endpoint}, outbox {settings.outbox_dir})")
        print(f"API key: {key}")
        print(f"Try: curl -s -H 'Authorization: Bearer {key}' --data-binary 'hello' {base_url}/v1/data/base64-encode")
        sys.stdout.flush()
        _uvicorn(args)
    finally:
        process.terminate()
        process.wait(timeout=10)
        (load_settings().state_dir / RUN_STATE_FILE).unlink(missing_ok=True)
    return 0


def _dev_key(store: DynamoStore) -> str:
    """FILEAPI_DEV_KEY on FILEAPI_DEV_PLAN (default business) made sure of, or a new key."""
    settings = load_settings()
    if settings.dev_key:
        ensure_key(
            store, key=settings.dev_key, email=settings.dev_email, plan=settings.dev_plan, quota=settings.dev_quota
        )
        return settings.dev_key
    return create_key(store, email=settings.dev_email, plan=settings.dev_plan, quota=settings.dev_quota)


def _uvicorn(args: argparse.Namespace) -> None:
    import uvicorn

    uvicorn.run(
        "fileapi.local.server:create_local_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level="warning",
        access_log=False,
    )


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


def render_openapi(spec: dict[str, object]) -> str:
    """The committed text form of the OpenAPI document."""
    return json.dumps(spec, indent=2, ensure_ascii=False, sort_keys=False) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
