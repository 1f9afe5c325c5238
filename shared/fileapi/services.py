"""The composition root: every process-wide service, built once from the settings on first use, and reset in one
place (`reset`).

The stores and the Meter, the account services, the conversion workers, and the file services (uploads,
operations, idempotency keys, webhooks). Nothing below this module imports it: the web layer, the local
runner and the functions' entry points take their services from here, and hand them down. Tests and the local
runner install their own with `use_stores` and `use_file_services`. The DynamoDB stores (boto3), the account
services and the file services are imported when first built, not with this module: a function's cold import
holds only what its routes need (see docs/request-path.md, "Where imports go").
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from fileapi.settings import Settings, get_settings

if TYPE_CHECKING:
    from fileapi.account.billing import BillingEvents
    from fileapi.account.keys import KeyService
    from fileapi.account.portal import BillingPortal
    from fileapi.account.standin import LocalBillingPortal
    from fileapi.file_services import FileServices
    from fileapi.isolation.pool import WorkerPool
    from fileapi.metering.meter import Meter
    from fileapi.metering.settling import Fault
    from fileapi.metering.storage import Stores

R = TypeVar("R")
_lock = threading.Lock()
_stores: Stores | None = None
_meter: Meter | None = None
_keys: KeyService | None = None
_billing: BillingEvents | None = None
_portal: BillingPortal | LocalBillingPortal | None = None
_workers: WorkerPool | None = None
_files: FileServices | None = None
_worker_modules: list[str] = []
MIB = 1 << 20
# A worker's own memory once it has imported its converters and their libraries (measured: 21-49 MiB RSS).
WORKER_BASELINE_MIB = 64
DEFAULT_WORKER_MEMORY_MIB = 2048


def get_stores() -> Stores:
    """The admission and account stores of this process, over the configured DynamoDB table."""
    global _stores
    if _stores is None:
        with _lock:
            if _stores is None:
                from fileapi.metering.dynamo.connect import dynamo_stores, open_configured_table

                _stores = dynamo_stores(open_configured_table(get_settings()))
    return _stores


def get_meter() -> Meter:
    """The Meter of this process, over the admission store."""
    global _meter
    if _meter is None:
        stores = get_stores()
        with _lock:
            if _meter is None:
                from fileapi.metering.meter import Meter

                _meter = Meter(stores.admission, upgrade_url=get_settings().upgrade_url, on_fault=_report_fault)
    return _meter


def use_stores(stores: Stores | None, *, clock: Callable[[], int] | None = None) -> Meter | None:
    """Install `stores` for this process and a Meter over them (with `clock`, when given); None: build both
    from the settings again on next use. Returns the installed Meter."""
    global _stores, _meter, _keys, _billing, _portal
    with _lock:
        _stores = stores
        _meter = None
        if stores is not None:
            from fileapi.metering.meter import Meter

            _meter = Meter(stores.admission, upgrade_url=get_settings().upgrade_url, on_fault=_report_fault)
            if clock is not None:
                _meter.clock = clock
        _keys = _billing = _portal = None
    return _meter


@contextmanager
def stores_installed(stores: Stores, *, clock: Callable[[], int] | None = None) -> Iterator[Meter]:
    """Use `stores` (and a Meter over them) for the duration of the block, then what was there before."""
    previous = _stores
    meter = use_stores(stores, clock=clock)
    assert meter is not None
    try:
        yield meter
    finally:
        use_stores(previous)


def _report_fault(fault: Fault) -> None:
    from fileapi.telemetry import report_metering_fault

    report_metering_fault(fault.value)


def get_key_service() -> KeyService:
    """Key rotation and recovery over the Meter's store and the configured mailer."""
    global _keys
    if _keys is None:
        store = get_stores().accounts
        with _lock:
            if _keys is None:
                from fileapi.account.keys import KeyService
                from fileapi.account.mailer import create_mailer

                _keys = KeyService(store, create_mailer(get_settings()))
    return _keys


def get_billing_events() -> BillingEvents:
    """Stripe event handling; the webhook secret comes from FILEAPI_STRIPE_WEBHOOK_SECRET or, in AWS, the
    SSM SecureString named by FILEAPI_STRIPE_WEBHOOK_SECRET_PARAM (cached for 5 minutes)."""
    global _billing
    if _billing is None:
        store = get_stores().accounts
        with _lock:
            if _billing is None:
                from fileapi.account.billing import BillingEvents
                from fileapi.account.mailer import create_mailer

                settings = get_settings()
                _billing = BillingEvents(
                    store,
                    create_mailer(settings),
                    lambda: webhook_secret(settings),
                    on_account_change=lambda account_id: get_meter().account_changed(account_id),
                )
    return _billing


def get_billing_portal() -> BillingPortal | LocalBillingPortal:
    """Portal sessions with the Stripe secret key from FILEAPI_STRIPE_SECRET_KEY or the SSM SecureString
    named by FILEAPI_STRIPE_SECRET_KEY_PARAM (cached for 5 minutes); on the local billing stand-in
    (FILEAPI_BILLING_STANDIN=1, set by `fileapi run`), sessions of the local portal page."""
    global _portal
    if _portal is None:
        settings = get_settings()
        with _lock:
            if _portal is None and settings.billing_standin:
                from fileapi.account.standin import LocalBillingPortal

                _portal = LocalBillingPortal(lambda: webhook_secret(settings), base_url=settings.local_base_url)
            elif _portal is None:
                from fileapi.account.portal import BillingPortal

                _portal = BillingPortal(
                    lambda: secret(settings.stripe_secret_key, settings.stripe_secret_key_parameter),
                    return_url=settings.billing_return_url,
                    api_base=settings.stripe_api_base,
                )
    return _portal


def preload_in_workers(*modules: str) -> None:
    """Have conversion workers started from now on import `modules` before their first job (a function's app
    names its converters and their libraries, so that its first conversion pays no import)."""
    with _lock:
        _worker_modules.extend(module for module in modules if module not in _worker_modules)


def get_workers() -> WorkerPool:
    """The conversion workers of this process (started on first use, or by `start_workers`)."""
    global _workers
    if _workers is None:
        with _lock:
            if _workers is None:
                from fileapi.isolation.pool import WorkerPool

                settings = get_settings()
                _workers = WorkerPool(
                    settings.conversion_workers,
                    memory_bytes=worker_memory_bytes(settings),
                    modules=tuple(_worker_modules),
                    spare=True,  # one worker kept for the other keys while one is active (isolation.turns)
                )
    return _workers


async def run_in_worker(function: Callable[..., R], *args: Any, **kwargs: Any) -> R:
    """`function(*args, **kwargs)` in one of this process's conversion workers, within the conversion deadline and
    the answer's size limit (an operation's work, a pipeline's stages; the web layer adds its tracing).

    :raises ApiError: the converter's refusal, or how the worker ended (fileapi.isolation.pool).
    """
    from fileapi.isolation.tenants import current_tenant

    settings = get_settings()
    tenant = current_tenant()
    return await get_workers().run(
        function,
        *args,
        seconds=settings.deadline_seconds,
        max_response_bytes=settings.max_response_bytes,
        key=tenant.account_id if tenant is not None else "",
        on_overrun=tenant.overran if tenant is not None else None,
        **kwargs,
    )


def get_file_services() -> FileServices:
    """The uploads, operations, idempotency keys and webhooks of this process, over the configured table, bucket
    and queues (boto3 imported now)."""
    global _files
    if _files is None:
        with _lock:
            if _files is None:
                from fileapi.file_services import build_file_services
                from fileapi.storage.connect import open_configured_table

                settings = get_settings()
                _files = build_file_services(settings, open_configured_table(settings))
    return _files


def use_file_services(services: FileServices | None) -> None:
    """Install `services` for this process (None: build them from the settings again on next use)."""
    global _files
    with _lock:
        _files = services


def reset() -> None:
    """Forget every service of this process (the workers are stopped): the next use builds them again from the
    settings. Tests call it between configurations; SnapStart calls `reset_after_restore`."""
    global _files
    stop_workers()
    use_stores(None)
    with _lock:
        _files = None


def start_workers() -> None:
    """Start this process's conversion workers now (a Lambda function's init, a server's start-up), if any app
    of the process converts in workers (`preload_in_workers`)."""
    if _worker_modules:
        get_workers().start()


def stop_workers() -> None:
    """Kill this process's conversion workers; the next conversion starts new ones."""
    global _workers
    with _lock:
        workers, _workers = _workers, None
    if workers is not None:
        workers.close()


def worker_memory_bytes(settings: Settings) -> int:
    """What one conversion may add to its worker: FILEAPI_WORKER_MEMORY_MB; in Lambda, the function's memory less
    this process's, a worker's own and 15%; else 2 GiB."""
    if settings.worker_memory_mb is not None:
        return settings.worker_memory_mb * MIB
    if settings.lambda_memory_mb is None:
        return DEFAULT_WORKER_MEMORY_MIB * MIB
    available = settings.lambda_memory_mb * MIB * 85 // 100 - resident_bytes() - WORKER_BASELINE_MIB * MIB
    return max(available, 128 * MIB)


def resident_bytes() -> int:
    """This process's resident memory (RSS), from /proc/self/statm."""
    import os

    with open("/proc/self/statm", "rb") as statm:
        pages = int(statm.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


def webhook_secret(settings: Settings) -> str | None:
    """The Stripe endpoint secret from the environment, else from SSM Parameter Store."""
    return secret(settings.stripe_webhook_secret, settings.stripe_webhook_secret_parameter)


def secret(value: str | None, parameter: str | None) -> str | None:
    """A secret given directly (local use), else read from SSM Parameter Store (decrypted, cached 5 minutes)."""
    if value:
        return value
    if parameter:
        from aws_lambda_powertools.utilities import parameters

        return str(parameters.get_parameter(parameter, decrypt=True, max_age=300))
    return None


# What else a restored copy resets (`also_after_restore`): state of modules below the composition root.
_also_reset: list[Callable[[], None]] = []


def also_after_restore(reset: Callable[[], None]) -> None:
    """Have `reset_after_restore` call `reset` too (e.g. random numbers drawn ahead, which every restored copy
    would share)."""
    _also_reset.append(reset)


def reset_after_restore() -> None:
    """SnapStart: a function restored from a snapshot must not reuse the snapshot's network clients
    (their connections are gone, and every restored copy would share them) nor its random state."""
    global _stores, _meter, _keys, _billing, _portal, _files
    with _lock:
        _stores = _meter = _keys = _billing = _portal = None
        _files = None
    random.seed()
    for reset in _also_reset:
        reset()


def register_snapstart_hooks() -> None:
    """Register `reset_after_restore` with the Lambda runtime's SnapStart hooks, where they exist."""
    try:
        from snapshot_restore_py import register_after_restore  # only in the Lambda runtime
    except ImportError:
        return
    register_after_restore(reset_after_restore)
