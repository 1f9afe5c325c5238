"""Configuration: the settings of the process, read from the environment variables declared in
fileapi.setting_variables (the two modules that read the environment).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from fileapi.setting_variables import (
    ACCESS_LOG,
    ACCESS_LOG_STYLES,
    BILLING_RETURN_URL,
    BILLING_STANDIN,
    BUCKET,
    CONVERSION_WORKERS,
    CORS_ALLOWED_ORIGINS,
    DEADLINE_SECONDS,
    DEFAULT_FILES_RETENTION_DAYS,
    DEFAULT_REGION,
    DEFAULT_REQUEST_SECONDS,
    DEFAULT_RESULT_LINK_SECONDS,
    DEFAULT_UPLOAD_URL_SECONDS,
    DEV_EMAIL,
    DEV_KEY,
    DEV_PLAN,
    DEV_QUOTA,
    DYNAMODB_ENDPOINT,
    DYNAMODB_READ_TIMEOUT,
    DYNAMODB_READ_TIMEOUT_SECONDS,
    FILES_RETENTION_DAYS,
    LAMBDA_FUNCTION_NAME,
    LAMBDA_MEMORY,
    LOCAL_BASE_URL,
    LOCAL_DYNAMODB_READ_TIMEOUT_SECONDS,
    MAIL_FROM,
    MAILER,
    MAX_BODY_BYTES,
    MAX_RESPONSE_BYTES,
    METRICS,
    OPERATIONS_QUEUE_URL,
    OUTBOX,
    PORT,
    REGION,
    REQUEST_SECONDS,
    RESULT_LINK_SECONDS,
    S3_ENDPOINT,
    SERVICE_NAME,
    SQS_ENDPOINT,
    STAGE,
    STATE_DIR,
    STRIPE_API_BASE,
    STRIPE_SECRET_KEY,
    STRIPE_SECRET_KEY_PARAM,
    STRIPE_WEBHOOK_SECRET,
    STRIPE_WEBHOOK_SECRET_PARAM,
    TABLE,
    TRACE_DISABLED,
    UPGRADE_URL,
    UPLOAD_URL_SECONDS,
    URLS_ALLOW_LOOPBACK,
    WEBHOOK_SCHEDULE,
    WEBHOOKS_DLQ_URL,
    WEBHOOKS_QUEUE_URL,
    WORK_DIR,
    WORKER_MEMORY_MB,
    Variable,
)


@dataclass(frozen=True)
class Settings:
    """What the service needs to know about where it runs (dev_*: the key `fileapi run` makes sure of)."""

    stage: str
    table_name: str
    region: str
    dynamodb_endpoint: str | None
    dynamodb_read_timeout: float
    max_body_bytes: int
    max_response_bytes: int
    deadline_seconds: int
    request_seconds: float
    conversion_workers: int
    worker_memory_mb: int | None  # None: sized from the function's memory (Lambda) or the default
    lambda_memory_mb: int | None
    outbox_dir: Path
    state_dir: Path
    mailer: str
    mail_from: str
    upgrade_url: str | None
    port: int
    billing_standin: bool
    billing_standin_refused: bool
    local_base_url: str
    emit_metrics: bool
    stripe_webhook_secret: str | None
    stripe_secret_key: str | None
    stripe_secret_key_parameter: str | None
    stripe_api_base: str | None
    billing_return_url: str
    stripe_webhook_secret_parameter: str | None
    dev_key: str | None
    dev_plan: str
    dev_email: str
    dev_quota: int | None
    cors_allowed_origins: tuple[str, ...] | None  # None: the template's CorsAllowedOrigins default
    tracing: bool
    service_name: str
    s3_endpoint: str | None = None
    sqs_endpoint: str | None = None
    bucket: str = "fileapi-local-files"
    operations_queue_url: str | None = None
    webhooks_queue_url: str | None = None
    webhooks_dlq_url: str | None = None
    upload_url_seconds: int = DEFAULT_UPLOAD_URL_SECONDS
    result_link_seconds: int = DEFAULT_RESULT_LINK_SECONDS
    files_retention_days: int = DEFAULT_FILES_RETENTION_DAYS
    work_dir: Path | None = None  # None: the system's temporary folder
    webhook_schedule: tuple[int, ...] | None = None  # None: fileapi.webhooks.delivery.SCHEDULE_SECONDS
    urls_allow_loopback: bool = False  # http:// and loopback addresses allowed in URLs we call (local use)
    access_log: str = "json"  # one of ACCESS_LOG_STYLES


def load_settings() -> Settings:
    """Read the settings from the environment (no caching; see `get_settings`)."""
    endpoint = DYNAMODB_ENDPOINT.value()
    in_lambda = LAMBDA_FUNCTION_NAME.value() is not None
    return Settings(
        stage=STAGE.text(),
        table_name=TABLE.text(),
        region=REGION.value() or DEFAULT_REGION.text(),
        dynamodb_endpoint=endpoint,
        # DynamoDB answers single-item calls in milliseconds; moto's local server, one request at a time, may not
        dynamodb_read_timeout=DYNAMODB_READ_TIMEOUT.seconds(
            LOCAL_DYNAMODB_READ_TIMEOUT_SECONDS if endpoint else DYNAMODB_READ_TIMEOUT_SECONDS
        ),
        max_body_bytes=MAX_BODY_BYTES.integer(),
        max_response_bytes=MAX_RESPONSE_BYTES.integer(),
        deadline_seconds=DEADLINE_SECONDS.integer(),
        request_seconds=REQUEST_SECONDS.seconds(DEFAULT_REQUEST_SECONDS),
        conversion_workers=CONVERSION_WORKERS.integer()
        if CONVERSION_WORKERS.value()
        else (1 if in_lambda else max(1, os.cpu_count() or 1)),
        worker_memory_mb=WORKER_MEMORY_MB.integer() if WORKER_MEMORY_MB.value() else None,
        lambda_memory_mb=LAMBDA_MEMORY.integer() if LAMBDA_MEMORY.value() else None,
        outbox_dir=Path(OUTBOX.text()),
        state_dir=Path(STATE_DIR.text()),
        mailer=MAILER.text(),
        mail_from=MAIL_FROM.text(),
        upgrade_url=UPGRADE_URL.value(),
        port=PORT.integer(),
        billing_standin=BILLING_STANDIN.value() == "1",
        billing_standin_refused=BILLING_STANDIN.value() == "0",
        local_base_url=LOCAL_BASE_URL.value() or f"http://127.0.0.1:{PORT.integer()}",
        emit_metrics=in_lambda or METRICS.value() == "1",
        stripe_webhook_secret=STRIPE_WEBHOOK_SECRET.value(),
        stripe_secret_key=STRIPE_SECRET_KEY.value(),
        stripe_secret_key_parameter=STRIPE_SECRET_KEY_PARAM.value(),
        stripe_api_base=STRIPE_API_BASE.value(),
        billing_return_url=BILLING_RETURN_URL.text(),
        stripe_webhook_secret_parameter=STRIPE_WEBHOOK_SECRET_PARAM.value(),
        dev_key=DEV_KEY.value(),
        dev_plan=DEV_PLAN.text(),
        dev_email=DEV_EMAIL.text(),
        dev_quota=DEV_QUOTA.integer(minimum=0) if DEV_QUOTA.value() else None,
        cors_allowed_origins=CORS_ALLOWED_ORIGINS.items(),
        # X-Ray: on the Lambda runtime unless POWERTOOLS_TRACE_DISABLED (the template's TracingEnabled).
        tracing=in_lambda and TRACE_DISABLED.text().lower() not in ("true", "1"),
        service_name=SERVICE_NAME.text(),
        s3_endpoint=S3_ENDPOINT.value(),
        sqs_endpoint=SQS_ENDPOINT.value(),
        bucket=BUCKET.text(),
        operations_queue_url=OPERATIONS_QUEUE_URL.value(),
        webhooks_queue_url=WEBHOOKS_QUEUE_URL.value(),
        webhooks_dlq_url=WEBHOOKS_DLQ_URL.value(),
        upload_url_seconds=UPLOAD_URL_SECONDS.integer(),
        result_link_seconds=RESULT_LINK_SECONDS.integer(),
        files_retention_days=FILES_RETENTION_DAYS.integer(),
        work_dir=Path(WORK_DIR.text()) if WORK_DIR.value() else None,
        webhook_schedule=_seconds_list(WEBHOOK_SCHEDULE),
        urls_allow_loopback=URLS_ALLOW_LOOPBACK.value() == "1",
        access_log=_access_log_style(),
    )


def _seconds_list(variable: Variable) -> tuple[int, ...] | None:
    """A comma-separated list of whole seconds (>= 0), or None when unset.

    :raises ValueError: an item that is not a whole number of seconds.
    """
    items = variable.items()
    if items is None:
        return None
    if not all(item.isdigit() for item in items):
        raise ValueError(f"{variable.name} must be whole seconds separated by commas, not {variable.value()!r}")
    return tuple(int(item) for item in items)


def child_environment(**extra: str) -> dict[str, str]:
    """This process's environment with `extra` added: what a child process of the local tools starts with."""
    return {**os.environ, **extra}


def _access_log_style() -> str:
    style = ACCESS_LOG.text()
    if style not in ACCESS_LOG_STYLES:
        raise ValueError(f"{ACCESS_LOG.name} must be one of {', '.join(ACCESS_LOG_STYLES)}, not {style!r}")
    return style


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once."""
    return load_settings()


def xray_trace_id() -> str | None:
    """The X-Ray trace id of the invocation being answered, as Powertools logs it: Lambda sets _X_AMZN_TRACE_ID
    for each invocation, so it is read each time, never kept with the settings."""
    header = os.environ.get("_X_AMZN_TRACE_ID")
    return header.split(";")[0].replace("Root=", "") if header else None
