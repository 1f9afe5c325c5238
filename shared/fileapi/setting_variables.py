"""The environment variables the service reads, each declared once (name, type, default, meaning): what
fileapi.settings reads them through, and the table of docs/operations.md (`fileapi settings`).

Every setting has an embedded default that serves the local server (`make run`); the SAM template sets the
AWS values.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

# Lambda takes at most 6 MB per synchronous call and binary bodies travel base64-encoded
# (4/3 larger): 4,500,000 raw bytes is 6,000,000 encoded, leaving room for the event envelope.
DEFAULT_MAX_BODY_BYTES = 4_500_000
# Lambda's limit on a synchronous function's serialised result ("6 MB": 6 MiB + 100 bytes, the
# figure in its RequestEntityTooLarge error); responses are measured as Lambda serialises them
# (fileapi.web.limits), so the local server refuses exactly what Lambda would.
DEFAULT_MAX_RESPONSE_BYTES = 6_291_556
# Conversions answer within this many seconds (API Gateway's limit is 30 s; the functions' timeout 29 s).
DEFAULT_DEADLINE_SECONDS = 20
# A request's headers and its body each arrive within this many seconds on `fileapi serve` (API Gateway's own
# limit for a whole request is 30 s).
DEFAULT_REQUEST_SECONDS = 30
# How long a DynamoDB call may wait for its reply: short in AWS (a call takes milliseconds; a store that does
# not answer gives 503 within 2 s), longer against a local endpoint.
DYNAMODB_READ_TIMEOUT_SECONDS = 0.5
LOCAL_DYNAMODB_READ_TIMEOUT_SECONDS = 5.0
# Files beyond the synchronous limit (docs/operations.md, "Files and operations"): a presigned POST is good for an
# hour; a result link for 24 h; uploads, results and their records are kept one day (S3 lifecycle works in days).
DEFAULT_UPLOAD_URL_SECONDS = 3_600
DEFAULT_RESULT_LINK_SECONDS = 86_400
DEFAULT_FILES_RETENTION_DAYS = 1


@dataclass(frozen=True)
class Variable:
    """One environment variable the service reads: its name, type, default and meaning, declared once here
    and printed as the table of docs/operations.md by `fileapi settings --markdown` (a test compares them).
    An empty value counts as unset."""

    name: str
    type: str  # as the table names it: text, integer, seconds, path, URL, list, flag
    default: str | int | float | None  # None: unset (the setting is off or absent)
    meaning: str
    default_note: str = ""  # a default worked out when the variable is read, in words (replaces `default`)

    def value(self) -> str | None:
        """The variable's text, or None when it is unset or empty."""
        return os.environ.get(self.name) or None

    def text(self) -> str:
        """The variable's text, else its default."""
        return self.value() or str(self.default)

    def integer(self, *, minimum: int = 1) -> int:
        raw = self.value()
        if raw is None:
            return int(self.default or 0)
        try:
            value = int(raw)
        except ValueError:
            raise ValueError(f"{self.name} must be a whole number, not {raw!r}") from None
        if value < minimum:
            raise ValueError(f"{self.name} must be >= {minimum}, not {value}")
        return value

    def seconds(self, default: float) -> float:
        raw = self.value()
        if raw is None:
            return default
        try:
            value = float(raw)
        except ValueError:
            raise ValueError(f"{self.name} must be a number of seconds, not {raw!r}") from None
        if not 0 < value <= 60:
            raise ValueError(f"{self.name} must be between 0 and 60 seconds, not {value}")
        return value

    def items(self) -> tuple[str, ...] | None:
        """A comma-separated list (as CloudFormation's CommaDelimitedList), or None when unset or empty."""
        items = tuple(item.strip() for item in (self.value() or "").split(",") if item.strip())
        return items or None


PORT = Variable("FILEAPI_PORT", "integer", 3000, "port of the local API")
DEV_KEY = Variable(
    "FILEAPI_DEV_KEY",
    "text",
    None,
    "a key `sk_live_...` that `make run` makes sure exists (`fileapi keys dev` prints it)",
    default_note="the last run's (`.local/dev-key`), else a new one",
)
DEV_PLAN = Variable("FILEAPI_DEV_PLAN", "text", "business", "plan of that key: starter, pro, growth, scale, business")
DEV_EMAIL = Variable("FILEAPI_DEV_EMAIL", "text", "dev@example.com", "account e-mail of that key")
DEV_QUOTA = Variable(
    "FILEAPI_DEV_QUOTA", "integer", None, "monthly quota override of that key", default_note="the plan's"
)
OUTBOX = Variable(
    "FILEAPI_OUTBOX", "path", ".local/outbox", "folder for outgoing e-mail (.eml) when the mailer is `outbox`"
)
ACCESS_LOG_STYLES = ("json", "line", "off")
ACCESS_LOG = Variable(
    "FILEAPI_ACCESS_LOG",
    "text",
    "json",
    "the access record of each request: `json` (one JSON object, as in Lambda), `line` (one readable line: time, "
    "method, route, status, latency, bytes, error, key prefix, metering) or `off`",
    default_note="`line` on `fileapi run` and `fileapi serve` when their output is a terminal, else `json`",
)
STATE_DIR = Variable(
    "FILEAPI_STATE_DIR",
    "path",
    ".local",
    "where `fileapi run` keeps its dev key and its local data between runs, and notes its endpoint for the CLI",
)
MAX_BODY_BYTES = Variable(
    "FILEAPI_MAX_BODY_BYTES", "integer", DEFAULT_MAX_BODY_BYTES, "largest request body (413 `too_large` above)"
)
MAX_RESPONSE_BYTES = Variable(
    "FILEAPI_MAX_RESPONSE_BYTES",
    "integer",
    DEFAULT_MAX_RESPONSE_BYTES,
    "largest response, measured as Lambda serialises it (Lambda's own limit)",
)
DEADLINE_SECONDS = Variable(
    "FILEAPI_DEADLINE_SECONDS",
    "integer",
    DEFAULT_DEADLINE_SECONDS,
    "a conversion still running after this many seconds is stopped and answered 413 `too_large`",
)
REQUEST_SECONDS = Variable(
    "FILEAPI_REQUEST_SECONDS",
    "seconds",
    DEFAULT_REQUEST_SECONDS,
    "`fileapi serve`: a connection that has not begun a request this long after opening (or after its last "
    "answer) is closed; a body not fully arrived this long after its headers is answered 408 `request_timeout`",
)
CONVERSION_WORKERS = Variable(
    "FILEAPI_CONVERSION_WORKERS",
    "integer",
    None,
    "conversion worker processes of each server process (untrusted native work runs in them, one job each)",
    default_note="1 in Lambda (an invocation is alone), else the number of CPUs",
)
WORKER_MEMORY_MB = Variable(
    "FILEAPI_WORKER_MEMORY_MB",
    "integer",
    None,
    "memory (MiB) one conversion may add to its worker's (its address-space limit); past it 413 `too_large`",
    default_note="in Lambda, the function's memory less the request process's and 15%; else 2048",
)
LAMBDA_MEMORY = Variable(
    "AWS_LAMBDA_FUNCTION_MEMORY_SIZE",
    "integer",
    None,
    "set by Lambda: the function's memory (MiB)",
    default_note="(not Lambda)",
)
CORS_ALLOWED_ORIGINS = Variable(
    "FILEAPI_CORS_ALLOWED_ORIGINS",
    "list",
    None,
    "origins the local server's CORS allows (comma-separated; `http://*` style prefixes)",
    default_note="the template's `CorsAllowedOrigins` default (`*`)",
)
STAGE = Variable(
    "FILEAPI_STAGE",
    "text",
    "local",
    "the stage named in every log record (the template sets `dev`, `staging` or `prod`)",
)
TABLE = Variable("FILEAPI_TABLE", "text", "fileapi-local", "DynamoDB table")
REGION = Variable("AWS_REGION", "text", "us-east-1", "AWS region (else `AWS_DEFAULT_REGION`; set by Lambda)")
DEFAULT_REGION = Variable("AWS_DEFAULT_REGION", "text", "us-east-1", "AWS region when `AWS_REGION` is unset")
DYNAMODB_ENDPOINT = Variable(
    "FILEAPI_DYNAMODB_ENDPOINT", "URL", None, "DynamoDB endpoint URL (set by `make run`)", default_note="(AWS's)"
)
DYNAMODB_READ_TIMEOUT = Variable(
    "FILEAPI_DYNAMODB_READ_TIMEOUT",
    "seconds",
    DYNAMODB_READ_TIMEOUT_SECONDS,
    "seconds a DynamoDB call waits for its reply (0-60)",
    default_note=f"{DYNAMODB_READ_TIMEOUT_SECONDS:g} ({LOCAL_DYNAMODB_READ_TIMEOUT_SECONDS:g} with a local endpoint)",
)
S3_ENDPOINT = Variable(
    "FILEAPI_S3_ENDPOINT", "URL", None, "S3 endpoint URL (set by `make run`: moto's server)", default_note="(AWS's)"
)
SQS_ENDPOINT = Variable(
    "FILEAPI_SQS_ENDPOINT", "URL", None, "SQS endpoint URL (set by `make run`: moto's server)", default_note="(AWS's)"
)
BUCKET = Variable("FILEAPI_BUCKET", "text", "fileapi-local-files", "S3 bucket of uploads and operation results")
OPERATIONS_QUEUE_URL = Variable(
    "FILEAPI_OPERATIONS_QUEUE_URL",
    "URL",
    None,
    "SQS queue of operations (the Operations function's trigger)",
    default_note="(operations off; `make run` sets it)",
)
WEBHOOKS_QUEUE_URL = Variable(
    "FILEAPI_WEBHOOKS_QUEUE_URL",
    "URL",
    None,
    "SQS queue of webhook deliveries (the Webhooks function's trigger)",
    default_note="(no deliveries; `make run` sets it)",
)
WEBHOOKS_DLQ_URL = Variable(
    "FILEAPI_WEBHOOKS_DLQ_URL",
    "URL",
    None,
    "SQS dead-letter queue that receives deliveries whose every attempt failed",
    default_note="(dropped; `make run` sets it)",
)
UPLOAD_URL_SECONDS = Variable(
    "FILEAPI_UPLOAD_URL_SECONDS", "integer", DEFAULT_UPLOAD_URL_SECONDS, "seconds an upload's presigned POST is valid"
)
RESULT_LINK_SECONDS = Variable(
    "FILEAPI_RESULT_LINK_SECONDS",
    "integer",
    DEFAULT_RESULT_LINK_SECONDS,
    "seconds a result's presigned GET is valid (at most until the result expires)",
)
FILES_RETENTION_DAYS = Variable(
    "FILEAPI_FILES_RETENTION_DAYS",
    "integer",
    DEFAULT_FILES_RETENTION_DAYS,
    "days uploads, results and their records are kept (the bucket's lifecycle rule says the same)",
)
WORK_DIR = Variable(
    "FILEAPI_WORK_DIR",
    "path",
    None,
    "where operations stream their files",
    default_note="the system's temporary folder",
)
WEBHOOK_SCHEDULE = Variable(
    "FILEAPI_WEBHOOK_SCHEDULE",
    "list",
    None,
    "seconds to wait before each attempt of a webhook delivery, the first included (comma-separated)",
    default_note="Standard Webhooks': 0,5,300,1800,7200,18000,36000,36000 (8 attempts over 27.6 hours)",
)
URLS_ALLOW_LOOPBACK = Variable(
    "FILEAPI_URLS_ALLOW_LOOPBACK",
    "flag",
    None,
    "`1`: URLs the service calls (webhooks, URL inputs, PUT outputs) may be http:// and reach loopback addresses "
    "(`fileapi run` sets it; never deployed)",
)
UPGRADE_URL = Variable(
    "FILEAPI_UPGRADE_URL", "URL", None, "link put as `upgrade_url` on quota, rate and subscription errors"
)
MAILER = Variable("FILEAPI_MAILER", "text", "outbox", "`outbox` (files in FILEAPI_OUTBOX) or `ses` (in AWS)")
MAIL_FROM = Variable("FILEAPI_MAIL_FROM", "text", "no-reply@fileapi.local", "sender address of the e-mail")
STRIPE_WEBHOOK_SECRET = Variable(
    "FILEAPI_STRIPE_WEBHOOK_SECRET", "text", None, "Stripe endpoint secret", default_note="(billing off)"
)
STRIPE_WEBHOOK_SECRET_PARAM = Variable(
    "FILEAPI_STRIPE_WEBHOOK_SECRET_PARAM",
    "text",
    None,
    "the SSM SecureString holding the Stripe endpoint secret",
    default_note="(billing off)",
)
STRIPE_SECRET_KEY = Variable(
    "FILEAPI_STRIPE_SECRET_KEY",
    "text",
    None,
    "Stripe secret key for portal sessions (without one: 503, or the local stand-in on `fileapi run`)",
)
STRIPE_SECRET_KEY_PARAM = Variable(
    "FILEAPI_STRIPE_SECRET_KEY_PARAM", "text", None, "the SSM SecureString holding the Stripe secret key"
)
STRIPE_API_BASE = Variable(
    "FILEAPI_STRIPE_API_BASE", "URL", None, "base URL of the Stripe API (a stand-in for tests)", default_note="Stripe's"
)
BILLING_RETURN_URL = Variable(
    "FILEAPI_BILLING_RETURN_URL", "URL", "https://example.com/account", "where the portal returns to"
)
BILLING_STANDIN = Variable(
    "FILEAPI_BILLING_STANDIN",
    "flag",
    None,
    "`1`: the local billing stand-in; `0`: never (`fileapi run` turns it on without a Stripe key)",
)
LOCAL_BASE_URL = Variable(
    "FILEAPI_LOCAL_BASE_URL",
    "URL",
    None,
    "base URL of the local API (the stand-in portal's links)",
    default_note="`http://127.0.0.1:` and FILEAPI_PORT",
)
METRICS = Variable("FILEAPI_METRICS", "flag", None, "`1`: EMF metrics outside Lambda too", default_note="on in Lambda")
LAMBDA_FUNCTION_NAME = Variable(
    "AWS_LAMBDA_FUNCTION_NAME", "text", None, "set by Lambda: metrics and X-Ray tracing on", default_note="(not Lambda)"
)
TRACE_DISABLED = Variable(
    "POWERTOOLS_TRACE_DISABLED", "flag", "false", "`true` or `1`: no X-Ray tracing (the template's TracingEnabled)"
)
SERVICE_NAME = Variable("POWERTOOLS_SERVICE_NAME", "text", "fileapi", "service name in logs, metrics and traces")

# In the order of docs/operations.md's table: the order of declaration.
VARIABLES: tuple[Variable, ...] = tuple(value for value in dict(globals()).values() if isinstance(value, Variable))
