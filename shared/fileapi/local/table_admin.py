"""The `fileapi` commands that administer a metering table, local or deployed: keys, accounts, plans and the
table itself. They act on --endpoint/--table, else FILEAPI_DYNAMODB_ENDPOINT/FILEAPI_TABLE, else the running
`fileapi run`'s endpoint, else AWS with the caller's credentials."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, replace
from typing import Any

from fileapi.local.deliveries import send_pending_deliveries
from fileapi.local.run_state import running_endpoint, use_local_credentials
from fileapi.metering.accounts import Account
from fileapi.metering.admin import change_account, create_key, limits_of
from fileapi.metering.catalog import PlanCatalog
from fileapi.metering.dynamo.connect import dynamo_stores, open_table
from fileapi.metering.dynamo.migrate import migrate_table
from fileapi.metering.keys import generate_key
from fileapi.metering.plans import CONTRACT_PLANS, Plan, UnknownPlan
from fileapi.metering.storage import AccountExists, AccountStore
from fileapi.settings import load_settings
from fileapi.storage.table import DynamoTable, create_table

Commands = Any  # argparse's sub-parser action (its type is private to argparse)


def add_commands(commands: Commands, keys: Commands) -> None:
    """keys create|generate|deliver, accounts ..., plans ..., tables ... on `commands` (and `keys`)."""
    create = keys.add_parser("create", help="create an account with a new key; prints only the key")
    create.add_argument("--email", required=True)
    create.add_argument("--plan", required=True, help="a contract plan or a custom one (fileapi plans list)")
    create.add_argument("--quota", type=int, help="monthly quota override")
    _store_options(create)
    create.set_defaults(command=cmd_keys_create)
    generate = keys.add_parser("generate", help="print a new random key (stores nothing), e.g. for FILEAPI_DEV_KEY")
    generate.set_defaults(command=cmd_keys_generate)
    deliver = keys.add_parser("deliver", help="e-mail every issued key whose delivery has not finished")
    _store_options(deliver)
    deliver.set_defaults(command=lambda args: send_pending_deliveries(_store(args), load_settings()))

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
        "migrate", help="bring accounts of earlier item layouts to the current one (idempotent)"
    )
    _store_options(tables_migrate)
    tables_migrate.set_defaults(command=cmd_tables_migrate)


def _store_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--endpoint",
        help="DynamoDB endpoint URL (default: FILEAPI_DYNAMODB_ENDPOINT, else the running `fileapi run`, else AWS)",
    )
    parser.add_argument("--table", help="table name (default: FILEAPI_TABLE or fileapi-local)")


def _table(args: argparse.Namespace) -> DynamoTable:
    settings = load_settings()
    endpoint = args.endpoint or settings.dynamodb_endpoint or running_endpoint()
    if endpoint:
        use_local_credentials()
    table = args.table or settings.table_name
    return open_table(table, region=settings.region, endpoint_url=endpoint, read_timeout=settings.dynamodb_read_timeout)


def _store(args: argparse.Namespace) -> AccountStore:
    return dynamo_stores(_table(args)).accounts


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
    print(
        f"accounts upgraded: {report.accounts}, contact items made: {report.contacts}, "
        f"key links trimmed: {report.keys}, already current: {report.current}, "
        + (
            "set of earlier-format keys: kept as it was"
            if report.legacy_keys is None
            else f"set of earlier-format keys: sealed with {report.legacy_keys}"
        )
    )
    return 0
