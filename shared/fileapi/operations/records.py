"""What is stored of uploads and operations: their records, their states and their ids.

An operation is `running` from the moment it is accepted (admitted and queued) until it ends `succeeded`,
`failed` or `cancelled`; only `running` moves, and only once, so the executor's writes are safe under SQS's
at-least-once delivery: a second run of the same message finds the operation ended and does nothing.
"""

from __future__ import annotations

import secrets
import string
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fileapi.models.files import OperationStatus

if TYPE_CHECKING:
    from fileapi.metering.meter import Admission

UPLOAD_PREFIX = "upl_"
OPERATION_PREFIX = "op_"
# 26 characters of a 36-letter alphabet: 134 bits, unguessable (an id is not a secret, but it is not a
# listing either: another account's id answers 404 all the same).
ID_LENGTH = 26
_ID_ALPHABET = string.ascii_lowercase + string.digits


def new_id(prefix: str) -> str:
    """A new random id: `prefix` then 26 of a-z 0-9."""
    return prefix + "".join(secrets.choice(_ID_ALPHABET) for _ in range(ID_LENGTH))


def is_id(value: str, prefix: str) -> bool:
    """Whether `value` has the shape of an id made by `new_id(prefix)`."""
    rest = value.removeprefix(prefix)
    return rest != value and len(rest) == ID_LENGTH and all(char in _ID_ALPHABET for char in rest)


@dataclass(frozen=True)
class Upload:
    """A file a client was given a presigned POST for.

    :param key: the S3 object the POST writes (uploads/<account>/<id>).
    :param declared_size: the size the client announced, bytes; the object's own size is what counts.
    :param max_bytes: the plan's bound the POST's policy carries.
    :param created_at: epoch seconds; `expires_at` too (the record's TTL; the object's lifecycle matches).
    """

    id: str
    account_id: str
    key: str
    filename: str
    content_type: str
    declared_size: int
    max_bytes: int
    created_at: int
    expires_at: int


@dataclass(frozen=True)
class Charge:
    """The admission an operation holds a unit of: what giving it back needs
    (fileapi.metering.meter.Meter.refund_admitted)."""

    account_id: str
    period: str
    request_id: str
    shard: int
    day: int  # of `period` (1-31): the day its unit counts on, and is given back from

    @classmethod
    def of(cls, admission: Admission) -> Charge:
        """The charge of an admitted request."""
        return cls(admission.account_id, admission.period, admission.request_id, admission.shard, admission.day)


@dataclass(frozen=True)
class ResultFile:
    """One file of an operation's answer, stored at results/<account>/<operation>/<index>.

    :param name: a file name for the client (e.g. pdfs-3.pdf).
    :param size: bytes. :param sha256: lowercase hex of the object's SHA-256.
    :param field: the field of the synchronous JSON answer the file stands for (e.g. `pdfs[2]`); None when it
        is the whole answer (a binary or text one).
    """

    name: str
    content_type: str
    size: int
    sha256: str
    field: str | None = None


@dataclass(frozen=True)
class Request:
    """What an operation runs: the synchronous request it stands for, less its body.

    :param route: the route's path, e.g. /v1/pdf/split.
    :param query: the query string as given, without its `upload` parameters.
    :param content_type: the body's media type (an upload's, or the inline body's as the route received it).
    :param inputs: upload ids, in order.
    :param inline: the inputs are the request's own body (or its files), kept as uploads (`Prefer:
        respond-async`); else the inputs are the client's uploads (`?upload=`).
    :param options: the conversion's options as validated when the operation was accepted (wire names); None:
        read from `query` (a record of an earlier release), or from the upload itself (a JSON body uploaded).
    """

    route: str
    query: str
    content_type: str
    inputs: tuple[str, ...]
    inline: bool = False
    options: dict[str, Any] | None = None


@dataclass(frozen=True)
class Operation:
    """An operation: the request it runs, its state and, once ended, its result.

    :param created_at: epoch seconds; `updated_at` too; `expires_at` is the record's TTL.
    :param details: the route's JSON answer without the fields that became files (e.g. compress's sizes).
    :param refund_due: the operation ended without success and its unit is still to be given back (the one
        who removes the mark gives it back: exactly once).
    :param max_running: how many of its account's operations may run at once (its plan's, when accepted).
    :param ran_ms: once its work stopped (ended, or cancelled and stopped): milliseconds it ran; None before.
    """

    id: str
    account_id: str
    request: Request
    status: OperationStatus
    created_at: int
    updated_at: int
    expires_at: int
    charge: Charge
    results: tuple[ResultFile, ...] = ()
    details: dict[str, object] = field(default_factory=dict)
    error_code: str | None = None
    error_message: str | None = None
    refund_due: bool = False
    max_running: int = 1
    ran_ms: int | None = None

    @property
    def ended(self) -> bool:
        return self.status is not OperationStatus.RUNNING


def result_prefix(account_id: str, operation_id: str) -> str:
    """The S3 prefix of an operation's result files."""
    return f"results/{account_id}/{operation_id}/"


def result_key(account_id: str, operation_id: str, index: int) -> str:
    """The S3 key of an operation's result file number `index` (from 0)."""
    return f"{result_prefix(account_id, operation_id)}{index}"


def upload_key(account_id: str, upload_id: str) -> str:
    """The S3 key an upload's presigned POST writes."""
    return f"uploads/{account_id}/{upload_id}"
