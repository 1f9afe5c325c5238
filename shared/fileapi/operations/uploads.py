"""Uploads: a presigned POST to the bucket, bounded by the plan, owned by the key's account, expiring.

The POST's policy names the exact key, the media type and a content-length-range of 1 byte to the plan's
upload limit; S3 refuses any other form. The executor checks the object's size against the same bound
again (HEAD) before it reads a byte, so a bucket that did not enforce the policy still cannot pass it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from botocore.exceptions import ClientError

from fileapi.errors import InvalidInput, NotFound, TooLarge
from fileapi.metering.plans import max_upload_bytes
from fileapi.operations.records import UPLOAD_PREFIX, Upload, is_id, new_id, upload_key
from fileapi.operations.store import FileStore

if TYPE_CHECKING:
    from mypy_boto3_s3.client import S3Client

DAY_SECONDS = 86_400


@dataclass(frozen=True)
class PresignedPost:
    """Where and how to POST the file: `url`, and `fields` to send before it."""

    url: str
    fields: dict[str, str]
    expires_at: int  # epoch seconds


class UploadService:
    """Uploads of one bucket and table.

    :param url_seconds: how long a presigned POST is accepted (1 s to 7 days).
    :param retention_days: how long an upload's record and object are kept (the bucket's lifecycle says the same).
    :param clock: the current time in epoch seconds.
    """

    def __init__(
        self,
        store: FileStore,
        s3: S3Client,
        *,
        bucket: str,
        url_seconds: int,
        retention_days: int,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.s3 = s3
        self.bucket = bucket
        self.url_seconds = url_seconds
        self.retention_days = retention_days
        self.clock = clock

    def create(
        self, account_id: str, plan: str, *, filename: str, content_type: str, size: int
    ) -> tuple[Upload, PresignedPost]:
        """A new upload of the account and its presigned POST.

        :param size: the size the client announces, bytes (>= 1).
        :raises TooLarge: `size` is over the plan's upload limit (the message gives it).
        """
        limit = max_upload_bytes(plan)
        if size > limit:
            raise TooLarge(
                f"the file is {size:,} bytes; uploads on the {plan} plan take at most {limit:,} bytes "
                f"({limit // (1024 * 1024):,} MiB): upgrade the plan, or split the file first"
            )
        upload = self._new(account_id, filename=filename, content_type=content_type, size=size, max_bytes=limit)
        now = upload.created_at
        post = self.s3.generate_presigned_post(
            Bucket=self.bucket,
            Key=upload.key,
            Fields={"Content-Type": content_type},
            Conditions=[{"Content-Type": content_type}, ["content-length-range", 1, limit]],
            ExpiresIn=self.url_seconds,
        )
        self.store.put_upload(upload)
        return upload, PresignedPost(url=post["url"], fields=dict(post["fields"]), expires_at=now + self.url_seconds)

    def keep_body(self, account_id: str, body: bytes, *, content_type: str) -> Upload:
        """A new upload of the account holding `body`, a request's own body that is to run as an operation
        (`Prefer: respond-async`); it expires and is deleted as any upload. Its record keeps the request's
        media type (the operation rebuilds the request with it); the object is stored as bytes
        (application/octet-stream): a form media type, curl's default for --data-binary, is no description
        of what the object holds, and an S3 endpoint may read such a PUT body as a form (moto's server
        stores it empty)."""
        upload = self._new(account_id, filename="body", content_type=content_type, size=len(body), max_bytes=len(body))
        self.s3.put_object(Bucket=self.bucket, Key=upload.key, Body=body, ContentType="application/octet-stream")
        self.store.put_upload(upload)
        return upload

    def _new(self, account_id: str, *, filename: str, content_type: str, size: int, max_bytes: int) -> Upload:
        """A new upload record of the account (not yet stored), made now and expiring after the retention."""
        now = int(self.clock())
        upload_id = new_id(UPLOAD_PREFIX)
        return Upload(
            id=upload_id,
            account_id=account_id,
            key=upload_key(account_id, upload_id),
            filename=filename,
            content_type=content_type,
            declared_size=size,
            max_bytes=max_bytes,
            created_at=now,
            expires_at=now + self.retention_days * DAY_SECONDS,
        )

    def owned(self, upload_id: str, account_id: str) -> Upload:
        """The account's upload `upload_id`.

        :raises NotFound: no such upload for this account (never made, expired, deleted, or another's).
        """
        upload = self.store.get_upload(upload_id) if is_id(upload_id, UPLOAD_PREFIX) else None
        if upload is None or upload.account_id != account_id:
            raise NotFound(
                f"no upload {upload_id[:40]!r} for this key's account (uploads expire "
                f"{self.retention_days * 24} hours after they are made): make one with POST /v1/uploads"
            )
        return upload

    def stored_size(self, upload: Upload) -> int:
        """The size in bytes of the file the upload's POST stored.

        :raises InvalidInput: no file was POSTed to the upload's URL yet.
        :raises TooLarge: the stored file is over the upload's bound.
        """
        try:
            head = self.s3.head_object(Bucket=self.bucket, Key=upload.key)
        except ClientError as exc:
            if exc.response["Error"]["Code"] in ("404", "NoSuchKey", "NotFound"):
                raise InvalidInput(
                    f"upload {upload.id} has no file yet: POST the file to its url with its fields first"
                ) from None
            raise
        size = int(head["ContentLength"])
        if size > upload.max_bytes:
            raise TooLarge(f"upload {upload.id} holds {size:,} bytes; at most {upload.max_bytes:,}")
        return size

    def first_bytes(self, upload: Upload, size: int) -> bytes:
        """The first `size` bytes (or fewer) of the file the upload's POST stored: one ranged GET."""
        answer = self.s3.get_object(Bucket=self.bucket, Key=upload.key, Range=f"bytes=0-{size - 1}")
        return answer["Body"].read(size)

    def delete(self, upload: Upload) -> None:
        """Delete the upload's file and its record."""
        self.s3.delete_object(Bucket=self.bucket, Key=upload.key)
        self.store.delete_upload(upload.id)
