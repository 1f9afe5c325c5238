"""`fileapi`: run the API on a laptop, and administer keys against the configured table.

fileapi run                 local DynamoDB endpoint + the whole API (what `make run` does)
fileapi serve               the API only, against FILEAPI_DYNAMODB_ENDPOINT (or AWS)
fileapi dynamodb            the local DynamoDB endpoint only
fileapi keys create ...     create an account with a new key; prints only the key
fileapi keys generate       print a new random key (stores nothing)
fileapi checkout ...        the local billing stand-in: a paid checkout (the key goes to the outbox)
fileapi plans create|list   custom plans (rate, burst, monthly quota, shards) and the contract's
fileapi tables create       create the table (local endpoints)
fileapi tables migrate      bring items of the first layout to the current one (idempotent)
fileapi openapi [--write]   print or regenerate shared/fileapi/openapi.json
fileapi settings [--write]  print the environment variables' table (or write it into docs/operations.md)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import secrets
import sys
import urllib.error
import urllib.request
from dataclasses import asdict, replace
from pathlib import Path

from fileapi.account.stripe_events import checkout_completed, sign
from fileapi.local import dynamo
from fileapi.metering.accounts import Account
from fileapi.metering.admin import change_account, create_key, ensure_key, limits_of
from fileapi.metering.dynamodb import DynamoTable, create_table
from fileapi.metering.keys import generate_key, is_well_formed
from fileapi.metering.migrate import migrate_table
from fileapi.metering.plans import CONTRACT_PLANS, Plan, PlanCatalog, UnknownPlan
from fileapi.metering.store import AccountExists, AccountStore
from fileapi.metering.stores import dynamo_stores, open_table
from fileapi.settings import Settings, load_settings

RUN_STATE_FILE = "run.json"
DEV_KEY_FILE = "dev-key"  # the key `fileapi run` made, kept for the next run (a local key on a local table)
STANDIN_SECRET_FILE = "billing-standin-secret"  # noqa: S105 (a file name)


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
    create.add_argument("--plan", required=True, help="a contract plan or a custom one (fileapi plans list)")
    create.add_argument("--quota", type=int, help="monthly quota override")
    _store_options(create)
    create.set_defaults(command=cmd_keys_create)
    generate = keys.add_parser("generate", help="print a new random key (stores nothing), e.g. for FILEAPI_DEV_KEY")
    generate.set_defaults(command=cmd_keys_generate)
    dev = keys.add_parser("dev", help="print the key of `fileapi run` (make run): KEY=$(.venv/bin/fileapi keys dev)")
    dev.set_defaults(command=cmd_keys_dev)

    checkout = commands.add_parser(
        "checkout", help="the local billing stand-in: a paid checkout for an e-mail and a plan (key to the outbox)"
    )
    checkout.add_argument("--email", required=True)
    checkout.add_argument("--plan", required=True, help="a contract plan or a custom one")
    checkout.set_defaults(command=cmd_checkout)

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
    set_plan.add_argument("plan", help="a contract plan or a custom one (fileapi plans list)")
    set_plan.add_argument("--quota", type=int, help="monthly quota override (omit for the plan's)")
    _store_options(set_plan)
    set_plan.set_defaults(command=cmd_accounts_set_plan)
    set_status = accounts.add_parser("set-status", help="change an account's subscription status")
    set_status.add_argument("email")
    set_status.add_argument("status", help="active, trialing, past_due, canceled, ...")
    _store_options(set_status)
    set_status.set_defaults(command=cmd_accounts_set_status)

    plans = commands.add_parser("plans", help="plans: the contract's and custom ones").add_subparsers(
        title="plans commands"
    )
    plans_create = plans.add_parser("create", help="create or replace a custom plan")
    plans_create.add_argument("name", help="1-32 of a-z 0-9 -")
    plans_create.add_argument("--rate", type=float, required=True, help="sustained requests per second")
    plans_create.add_argument("--burst", type=int, required=True, help="bucket capacity, requests")
    plans_create.add_argument("--quota", type=int, required=True, help="monthly quota, requests")
    plans_create.add_argument("--shards", type=int, default=0, help="items to spread the key over (0: derived)")
    _store_options(plans_create)
    plans_create.set_defaults(command=cmd_plans_create)
    plans_list = plans.add_parser("list", help="one line per plan: name, rate, burst, quota, shards, source")
    _store_options(plans_list)
    plans_list.set_defaults(command=cmd_plans_list)

    tables = commands.add_parser("tables", help="the metering table").add_subparsers(title="tables commands")
    tables_create = tables.add_parser("create", help="create the table if it does not exist")
    _store_options(tables_create)
    tables_create.set_defaults(command=cmd_tables_create)
    tables_migrate = tables.add_parser(
        "migrate", help="bring accounts of the first item layout to the current one (idempotent)"
    )
    _store_options(tables_migrate)
    tables_migrate.set_defaults(command=cmd_tables_migrate)

    openapi = commands.add_parser("openapi", help="print the OpenAPI document built from the functions")
    openapi.add_argument("--write", action="store_true", help="write it to shared/fileapi/openapi.json")
    openapi.set_defaults(command=cmd_openapi)
    settings = commands.add_parser(
        "settings", help="print the table of environment variables (docs/operations.md) from fileapi.settings"
    )
    settings.add_argument("--write", action="store_true", help="write it into docs/operations.md")
    settings.set_defaults(command=cmd_settings)
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


def _table(args: argparse.Namespace) -> DynamoTable:
    settings = load_settings()
    endpoint = args.endpoint or settings.dynamodb_endpoint or _running_endpoint()
    if endpoint:
        _use_local_credentials()
    table = args.table or settings.table_name
    return open_table(table, region=settings.region, endpoint_url=endpoint, read_timeout=settings.dynamodb_read_timeout)


def _store(args: argparse.Namespace) -> AccountStore:
    return dynamo_stores(_table(args)).accounts


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
    except (ValueError, AccountExists, UnknownPlan) as exc:
        print(f"fileapi: {exc}", file=sys.stderr)
        return 1
    print(key)
    return 0


def cmd_keys_generate(args: argparse.Namespace) -> int:
    print(generate_key())
    return 0


def _account_or_exit(store: AccountStore, email: str) -> Account | None:
    account = store.get_account_by_email(email)
    if account is None:
        print(f"fileapi: no account for {email}", file=sys.stderr)
    return account


def _public(store: AccountStore, account: Account) -> dict[str, object]:
    fields = {name: value for name, value in asdict(account).items() if name != "key_hash"}
    limits = limits_of(store, account)
    fields["quota_monthly"] = limits.quota_monthly
    fields["shards"] = limits.shards
    return fields


def cmd_accounts_list(args: argparse.Namespace) -> int:
    store = _store(args)
    for account in sorted(store.list_accounts(), key=lambda item: item.email):
        print(f"{account.email}\t{account.plan}\t{account.status}\t{limits_of(store, account).quota_monthly}")
    return 0


def cmd_accounts_show(args: argparse.Namespace) -> int:
    store = _store(args)
    account = _account_or_exit(store, args.email)
    if account is None:
        return 1
    print(json.dumps(_public(store, account), indent=2))
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
    try:
        change_account(store, updated)
    except UnknownPlan as exc:
        print(f"fileapi: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(_public(store, updated), indent=2))
    return 0


def cmd_plans_create(args: argparse.Namespace) -> int:
    try:
        plan = Plan(args.name, args.rate, args.burst, args.quota, args.shards)
        PlanCatalog(_store(args)).create(plan)
    except ValueError as exc:
        print(f"fileapi: {exc}", file=sys.stderr)
        return 1
    print(json.dumps({**asdict(plan), "shards_in_force": plan.shard_count}))
    return 0


def cmd_plans_list(args: argparse.Namespace) -> int:
    catalog = PlanCatalog(_store(args))
    for name in catalog.names():
        plan = catalog.get(name)
        source = "contract" if name in CONTRACT_PLANS else "custom"
        print(
            f"{name}\t{plan.sustained_per_second:g}/s\tburst {plan.burst}\tquota {plan.quota_monthly}"
            f"\tshards {plan.shard_count}\t{source}"
        )
    return 0


def cmd_tables_create(args: argparse.Namespace) -> int:
    table = _table(args)
    create_table(table.client, table.table_name)
    print(table.table_name)
    return 0


def cmd_tables_migrate(args: argparse.Namespace) -> int:
    report = migrate_table(_table(args))
    print(f"accounts upgraded: {report.accounts}, key links trimmed: {report.keys}, already current: {report.current}")
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
        table = open_table(
            settings.table_name,
            region=settings.region,
            endpoint_url=endpoint,
            read_timeout=settings.dynamodb_read_timeout,
        )
        create_table(table.client, table.table_name)
        _local_files(endpoint)
        key = _dev_key(dynamo_stores(table).accounts)
        base_url = f"http://{args.host}:{args.port}"
        os.environ["FILEAPI_LOCAL_BASE_URL"] = base_url
        standin = _billing_standin(settings)
        run_state = settings.state_dir / RUN_STATE_FILE
        run_state.parent.mkdir(parents=True, exist_ok=True)
        run_state.write_text(json.dumps({"base_url": base_url, "dynamodb_endpoint": endpoint}))
        settings.outbox_dir.mkdir(parents=True, exist_ok=True)
        print(f"File API on {base_url}  (DynamoDB endpoint {endpoint}, outbox {settings.outbox_dir})")
        print(f"API key: {key}")
        print(f"Try: curl -s -H 'Authorization: Bearer {key}' --data-binary 'hello' {base_url}/v1/data/base64-encode")
        if standin:
            print("Billing stand-in: fileapi checkout --email you@example.com --plan pro  (the key goes to the outbox)")
        sys.stdout.flush()
        from fileapi.local.queues import start_consumers

        consumers = start_consumers()
        try:
            _uvicorn(args)
        finally:
            for consumer in consumers:
                consumer.stop()
    finally:
        process.terminate()
        process.wait(timeout=10)
        (load_settings().state_dir / RUN_STATE_FILE).unlink(missing_ok=True)
    return 0


def _local_files(endpoint: str) -> None:
    """Serve S3 and SQS from the local endpoint too (moto serves every service on one port): the bucket and
    the queues are made, the settings pointed at them, and webhooks to loopback allowed."""
    from fileapi.operations.aws import create_local_resources

    os.environ["FILEAPI_S3_ENDPOINT"] = endpoint
    os.environ["FILEAPI_SQS_ENDPOINT"] = endpoint
    os.environ["FILEAPI_WEBHOOKS_ALLOW_LOOPBACK"] = "1"
    for name, value in create_local_resources(load_settings()).environment().items():
        os.environ[name] = value


def _billing_standin(settings: Settings) -> bool:
    """Turn the local billing stand-in on (fileapi.account.standin) unless a Stripe secret key is configured
    or FILEAPI_BILLING_STANDIN=0; it signs with its own endpoint secret, kept in the state folder."""
    if settings.billing_standin_refused or settings.stripe_secret_key or settings.stripe_secret_key_parameter:
        return False
    os.environ["FILEAPI_BILLING_STANDIN"] = "1"
    os.environ["FILEAPI_STRIPE_WEBHOOK_SECRET"] = standin_secret(settings.state_dir)
    return True


def standin_secret(state_dir: Path) -> str:
    """The local billing stand-in's webhook secret (made on first use; readable by the owner only)."""
    path = state_dir / STANDIN_SECRET_FILE
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("whsec_local_" + secrets.token_urlsafe(24))
        path.chmod(0o600)
    return path.read_text().strip()


def cmd_checkout(args: argparse.Namespace) -> int:
    settings = load_settings()
    try:
        base_url = str(json.loads((settings.state_dir / RUN_STATE_FILE).read_text())["base_url"])
    except (OSError, ValueError, KeyError):
        print("fileapi: no `fileapi run` is running here (start it with `make run`)", file=sys.stderr)
        return 1
    customer = "cus_local_" + hashlib.sha256(args.email.lower().encode()).hexdigest()[:14]
    body, signature = sign(
        checkout_completed(args.email, args.plan, customer), secret=standin_secret(settings.state_dir)
    )
    request = urllib.request.Request(  # noqa: S310 (the local server's own address)
        f"{base_url}/webhooks/stripe",
        data=body,
        headers={"Stripe-Signature": signature, "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
            response.read()
    except urllib.error.HTTPError as exc:
        print(f"fileapi: the webhook answered {exc.code}: {exc.read().decode(errors='replace')}", file=sys.stderr)
        return 1
    print(f"checkout done: {args.email} is on {args.plan}; the key was e-mailed to the outbox ({settings.outbox_dir})")
    return 0


def _dev_key(store: AccountStore) -> str:
    """FILEAPI_DEV_KEY on FILEAPI_DEV_PLAN (default business) made sure of; else the key of the last run (kept in
    the state folder, so scripts and the README's `KEY=$(.venv/bin/fileapi keys dev)` keep working across
    restarts), or a new one kept there."""
    settings = load_settings()
    key = _dev_key_in(settings)
    if key is not None and is_well_formed(key):
        ensure_key(store, key=key, email=settings.dev_email, plan=settings.dev_plan, quota=settings.dev_quota)
    else:
        key = create_key(store, email=settings.dev_email, plan=settings.dev_plan, quota=settings.dev_quota)
    if not settings.dev_key:
        saved = settings.state_dir / DEV_KEY_FILE
        saved.parent.mkdir(parents=True, exist_ok=True)
        saved.write_text(key + "\n")
        saved.chmod(0o600)
    return key


def _dev_key_in(settings: Settings) -> str | None:
    """FILEAPI_DEV_KEY, else the key the last `fileapi run` kept in the state folder (None: neither)."""
    saved = settings.state_dir / DEV_KEY_FILE
    return settings.dev_key or (saved.read_text().strip() if saved.is_file() else None)


def cmd_keys_dev(args: argparse.Namespace) -> int:
    key = _dev_key_in(load_settings())
    if not key:
        print("no key yet: start the API with `make run` (it makes one and keeps it)", file=sys.stderr)
        return 1
    print(key)
    return 0


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


def cmd_settings(args: argparse.Namespace) -> int:
    from fileapi.local.settings_doc import OPERATIONS_DOC, settings_table, write_settings_table

    if args.write:
        write_settings_table()
        print(OPERATIONS_DOC)
    else:
        sys.stdout.write(settings_table())
    return 0


def render_openapi(spec: dict[str, object]) -> str:
    """The committed text form of the OpenAPI document."""
    return json.dumps(spec, indent=2, ensure_ascii=False, sort_keys=False) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
