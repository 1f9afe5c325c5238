"""Configuration: the one module that reads environment variables.

Every setting has an embedded default that serves the local server (`make run`);
the SAM template sets the AWS values.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

# Lambda takes at most 6 MB per synchronous call and binary bodies travel base64-encoded
# (4/3 larger): 4,500,000 raw bytes is 6,000,000 encoded, leaving room for the event envelope.
DEFAULT_MAX_BODY_BYTES = 4_500_000
# Lambda's limit on a synchronous function's serialised result ("6 MB": 6 MiB + 100 bytes, the
# figure in its RequestEntityTooLarge error); responses are measured as Lambda serialises them
# (fileapi.web.limits), so the local server refuses exactly what Lambda would.
DEFAULT_MAX_RESPONSE_BYTES = 6_291_556
# Conversions answer within this many seconds (API Gateway's limit is 30 s; the functions' timeout 29 s).
DEFAULT_DEADLINE_SECONDS = 20
# How long a DynamoDB call may wait for its reply: short in AWS (a call takes milliseconds; a store that does
# not answer gives 503 within 2 s), longer against a local endpoint.
DYNAMODB_READ_TIMEOUT_SECONDS = 0.5
LOCAL_DYNAMODB_READ_TIMEOUT_SECONDS = 5.0


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


def _int_env(name: str, default: int, *, minimum: int = 1) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{name} must be a whole number, not {raw!r}") from None
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, not {value}")
    return value


def _seconds_env(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number of seconds, not {raw!r}") from None
    if not 0 < value <= 60:
        raise ValueError(f"{name} must be between 0 and 60 seconds, not {value}")
    return value


def _list_env(name: str) -> tuple[str, ...] | None:
    """A comma-separated list (as CloudFormation's CommaDelimitedList), or None when unset or empty."""
    items = tuple(item.strip() for item in os.environ.get(name, "").split(",") if item.strip())
    return items or None


def load_settings() -> Settings:
    """Read the settings from the environment (no caching; see `get_settings`)."""
    env = os.environ
    return Settings(
        stage=env.get("FILEAPI_STAGE", "local"),
        table_name=env.get("FILEAPI_TABLE", "fileapi-local"),
        region=env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or "us-east-1",
        dynamodb_endpoint=env.get("FILEAPI_DYNAMODB_ENDPOINT") or None,
        dynamodb_read_timeout=_seconds_env(
            "FILEAPI_DYNAMODB_READ_TIMEOUT",
            # DynamoDB answers single-item calls in milliseconds; moto's local server, one request at a time, may not
            LOCAL_DYNAMODB_READ_TIMEOUT_SECONDS
            if env.get("FILEAPI_DYNAMODB_ENDPOINT")
            else DYNAMODB_READ_TIMEOUT_SECONDS,
        ),
        max_body_bytes=_int_env("FILEAPI_MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES),
        max_response_bytes=_int_env("FILEAPI_MAX_RESPONSE_BYTES", DEFAULT_MAX_RESPONSE_BYTES),
        deadline_seconds=_int_env("FILEAPI_DEADLINE_SECONDS", DEFAULT_DEADLINE_SECONDS),
        outbox_dir=Path(env.get("FILEAPI_OUTBOX", ".local/outbox")),
        state_dir=Path(env.get("FILEAPI_STATE_DIR", ".local")),
        mailer=env.get("FILEAPI_MAILER", "outbox"),
        mail_from=env.get("FILEAPI_MAIL_FROM", "no-reply@fileapi.local"),
        upgrade_url=env.get("FILEAPI_UPGRADE_URL") or None,
        port=_int_env("FILEAPI_PORT", 3000),
        billing_standin=env.get("FILEAPI_BILLING_STANDIN") == "1",
        billing_standin_refused=env.get("FILEAPI_BILLING_STANDIN") == "0",
        local_base_url=env.get("FILEAPI_LOCAL_BASE_URL") or f"http://127.0.0.1:{_int_env('FILEAPI_PORT', 3000)}",
        emit_metrics=bool(env.get("AWS_LAMBDA_FUNCTION_NAME")) or env.get("FILEAPI_METRICS") == "1",
        stripe_webhook_secret=env.get("FILEAPI_STRIPE_WEBHOOK_SECRET") or None,
        stripe_secret_key=env.get("FILEAPI_STRIPE_SECRET_KEY") or None,
        stripe_secret_key_parameter=env.get("FILEAPI_STRIPE_SECRET_KEY_PARAM") or None,
        stripe_api_base=env.get("FILEAPI_STRIPE_API_BASE") or None,
        billing_return_url=env.get("FILEAPI_BILLING_RETURN_URL", "https://example.com/account"),
        stripe_webhook_secret_parameter=env.get("FILEAPI_STRIPE_WEBHOOK_SECRET_PARAM") or None,
        dev_key=env.get("FILEAPI_DEV_KEY") or None,
        dev_plan=env.get("FILEAPI_DEV_PLAN", "business"),
        dev_email=env.get("FILEAPI_DEV_EMAIL", "dev@example.com"),
        dev_quota=_int_env("FILEAPI_DEV_QUOTA", 0, minimum=0) if env.get("FILEAPI_DEV_QUOTA") else None,
        cors_allowed_origins=_list_env("FILEAPI_CORS_ALLOWED_ORIGINS"),
        # X-Ray: on the Lambda runtime unless POWERTOOLS_TRACE_DISABLED (the template's TracingEnabled).
        tracing=bool(env.get("AWS_LAMBDA_FUNCTION_NAME"))
        and env.get("POWERTOOLS_TRACE_DISABLED", "false").lower() not in ("true", "1"),
        service_name=env.get("POWERTOOLS_SERVICE_NAME", "fileapi"),
    )


def child_environment(**extra: str) -> dict[str, str]:
    """This process's environment with `extra` added: what a child process of the local tools starts with."""
    return {**os.environ, **extra}


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once."""
    return load_settings()


def xray_trace_id() -> str | None:
    """The X-Ray trace id of the invocation being answered, as Powertools logs it: Lambda sets _X_AMZN_TRACE_ID
    for each invocation, so it is read each time, never kept with the settings."""
    header = os.environ.get("_X_AMZN_TRACE_ID")
    return header.split(";")[0].replace("Root=", "") if header else None
