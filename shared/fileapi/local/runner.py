"""The `fileapi` commands that run the API on a laptop: `run` (a local endpoint for DynamoDB, S3 and SQS, the whole
API and its operations, what `make run` does), `serve`, `operations`, `dynamodb`, the billing stand-in's
`checkout`, and `keys dev` (the key `run` made)."""

from __future__ import annotations

import argparse
import hashlib
import os
import secrets
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from fileapi.account.stripe_events import checkout_completed, sign
from fileapi.local import dynamo
from fileapi.local.endpoint_state import STATE_FILE
from fileapi.local.ready import print_when_serving
from fileapi.local.run_state import clear_run_state, running_base_url, use_local_credentials, write_run_state
from fileapi.metering.admin import create_key, ensure_key
from fileapi.metering.dynamo.connect import dynamo_stores, open_table
from fileapi.metering.keys import is_key
from fileapi.metering.storage import AccountStore
from fileapi.setting_variables import ACCESS_LOG
from fileapi.settings import Settings, load_settings
from fileapi.storage.table import create_table

# How long the local endpoint may take to save its data when it stops (a second or two per 100 MB of uploads).
ENDPOINT_SAVE_SECONDS = 60
DEV_KEY_FILE = "dev-key"  # the key `fileapi run` made, kept for the next run (a local key on a local table)
STANDIN_SECRET_FILE = "billing-standin-secret"  # noqa: S105 (a file name)
# Connections (and requests) one server process holds at once; a request beyond is answered 503. Idle ones close
# after uvicorn's keep-alive timeout (5 s), so only a flood reaches this.
MAX_CONNECTIONS = 2048
Commands = Any  # argparse's sub-parser action (its type is private to argparse)


def add_commands(commands: Commands, keys: Commands) -> None:
    """run, serve, dynamodb, checkout on `commands`; dev on `keys`."""
    run = commands.add_parser("run", help="local DynamoDB endpoint + the whole API on one port")
    _server_options(run)
    run.add_argument(
        "--fresh",
        action="store_true",
        help="start with empty local data (the last run's usage, webhooks, uploads, operations are dropped)",
    )
    run.set_defaults(command=cmd_run)

    serve = commands.add_parser("serve", help="the API only, against the configured table")
    _server_options(serve)
    serve.set_defaults(command=cmd_serve)

    operations = commands.add_parser(
        "operations", help="run queued operations and webhook deliveries (the Operations and Webhooks functions)"
    )
    operations.add_argument(
        "--exit-with", type=int, metavar="PID", help="end when process PID ends, however it ends (fileapi run's own)"
    )
    operations.add_argument("--quiet", action="store_true", help="no line saying the consumers are polling")
    operations.set_defaults(command=cmd_operations)

    dynamodb = commands.add_parser("dynamodb", help="the local DynamoDB endpoint only (moto, single-threaded)")
    dynamodb.add_argument("--host", default="127.0.0.1")
    dynamodb.add_argument("--port", type=int, default=8000)
    dynamodb.set_defaults(command=cmd_dynamodb)

    dev = keys.add_parser("dev", help="print the key of `fileapi run` (make run): KEY=$(.venv/bin/fileapi keys dev)")
    dev.set_defaults(command=cmd_keys_dev)

    checkout = commands.add_parser(
        "checkout", help="the local billing stand-in: a paid checkout for an e-mail and a plan (key to the outbox)"
    )
    checkout.add_argument("--email", required=True)
    checkout.add_argument("--plan", required=True, help="a contract plan or a custom one")
    checkout.set_defaults(command=cmd_checkout)


def _server_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=load_settings().port, help="default: FILEAPI_PORT or 3000")
    parser.add_argument("--workers", type=int, default=1, help="uvicorn worker processes")


def cmd_dynamodb(args: argparse.Namespace) -> int:
    print(f"DynamoDB-compatible endpoint on http://{args.host}:{args.port}", flush=True)
    dynamo.serve(args.host, args.port)
    return 0


def _readable_logs_on_a_terminal() -> None:
    """A person watching a terminal gets one readable line per request (FILEAPI_ACCESS_LOG=line), unless they chose a
    style; in a file or a pipe the records stay JSON."""
    if sys.stdout.isatty() and not ACCESS_LOG.value():
        os.environ[ACCESS_LOG.name] = "line"


def cmd_serve(args: argparse.Namespace) -> int:
    _readable_logs_on_a_terminal()
    if load_settings().dynamodb_endpoint:
        use_local_credentials()
    _uvicorn(args)
    return 0


def cmd_operations(args: argparse.Namespace) -> int:
    from fileapi.local.queues import serve_operations

    if args.exit_with:
        dynamo.exit_with_parent(args.exit_with)
    if load_settings().dynamodb_endpoint:
        use_local_credentials()
    serve_operations(announce=not args.quiet)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    dev_key = load_settings().dev_key
    if dev_key and not is_key(dev_key):
        print(
            "fileapi: FILEAPI_DEV_KEY is not an API key (expected 'sk_live_', 43 letters and digits and a "
            "6-character checksum): make one with `.venv/bin/fileapi keys generate`, or unset it to use the "
            "last run's key",
            file=sys.stderr,
        )
        return 2
    _readable_logs_on_a_terminal()
    # Ctrl-C (the terminal signals the whole process group) or SIGTERM: SystemExit(128 + signal), so that the
    # cleanups below run and the exit status says which signal it was; the children end on their own, quietly.
    # uvicorn raises the signal again once it has shut down (and would swallow a KeyboardInterrupt itself).
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _exit_on_signal)
    state_path = load_settings().state_dir / STATE_FILE  # the local data, kept between runs
    if args.fresh:
        state_path.unlink(missing_ok=True)
    process, endpoint = dynamo.start_process(state_path=state_path)
    try:
        os.environ["FILEAPI_DYNAMODB_ENDPOINT"] = endpoint
        use_local_credentials()
        settings = load_settings()
        table = open_table(
            settings.table_name,
            region=settings.region,
            endpoint_url=endpoint,
            read_timeout=settings.dynamodb_read_timeout,
        )
        create_table(table.client, table.table_name)
        _serve_files_locally(endpoint)
        key = _dev_key(dynamo_stores(table).accounts)
        base_url = f"http://{args.host}:{args.port}"
        os.environ["FILEAPI_LOCAL_BASE_URL"] = base_url
        standin = _billing_standin(settings)
        write_run_state(base_url=base_url, endpoint=endpoint)
        settings.outbox_dir.mkdir(parents=True, exist_ok=True)
        banner = [
            f"File API on {base_url}  (DynamoDB endpoint {endpoint}, outbox {settings.outbox_dir})",
            f"API key: {key}",
            f"Try: curl -s -H 'Authorization: Bearer {key}' --data-binary 'hello' {base_url}/v1/data/base64-encode",
            f"Docs: {base_url}/docs  (Authorize with the key, then send requests from the page)",
            "Operations: uploads and Prefer: respond-async run in the background, on the local S3 and SQS",
        ]
        if standin:
            banner.append(
                "Billing stand-in: fileapi checkout --email you@example.com --plan pro  (the key goes to the outbox)"
            )
        print_when_serving(base_url, banner)  # once the port answers: a pasted command then finds the API up
        consumers = subprocess.Popen(
            [sys.executable, "-m", "fileapi.local.cli", "operations", "--quiet", "--exit-with", str(os.getpid())]
        )
        try:
            _uvicorn(args)
        finally:
            consumers.terminate()
            consumers.wait(timeout=30)
    finally:
        process.terminate()
        try:
            process.wait(timeout=ENDPOINT_SAVE_SECONDS)  # it saves the local data as it stops
        except subprocess.TimeoutExpired:
            process.kill()
        clear_run_state()
    return 0


def _serve_files_locally(endpoint: str) -> None:
    """Serve S3 and SQS from the local endpoint too (moto serves every service on one port): the bucket and the
    queues are made, the settings pointed at them, and URLs to loopback allowed."""
    from fileapi.operations.aws import create_local_resources

    os.environ["FILEAPI_S3_ENDPOINT"] = endpoint
    os.environ["FILEAPI_SQS_ENDPOINT"] = endpoint
    os.environ["FILEAPI_URLS_ALLOW_LOOPBACK"] = "1"
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
    base_url = running_base_url()
    if base_url is None:
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
    if key is not None and is_key(key):
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


def _exit_on_signal(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def _uvicorn(args: argparse.Namespace) -> None:
    import uvicorn

    from fileapi.local.arrival import BoundedH11Protocol

    uvicorn.run(
        "fileapi.local.server:create_local_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level="warning",
        access_log=False,
        http=BoundedH11Protocol,  # requests arrive within FILEAPI_REQUEST_SECONDS (fileapi.local.arrival)
        limit_concurrency=MAX_CONNECTIONS,
        # Shutdown waits for the requests in flight; none outlives the conversion deadline.
        timeout_graceful_shutdown=load_settings().deadline_seconds + 5,
    )
