"""Streaming between S3 and local files: never a whole file in memory.

A download is read in chunks of CHUNK_BYTES and written as it comes; an upload of a file larger than one
part goes as a multipart upload, one part in memory at a time, with its SHA-256 computed on the way.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mypy_boto3_s3.client import S3Client
    from mypy_boto3_s3.type_defs import CompletedPartTypeDef

CHUNK_BYTES = 1024 * 1024
# S3's parts are 5 MiB to 5 GiB, at most 10,000 of them: 16 MiB parts carry up to 156 GiB.
PART_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class Stored:
    """A file as stored: its size in bytes and lowercase hex SHA-256."""

    size: int
    sha256: str


def download(s3: S3Client, bucket: str, key: str, path: Path) -> int:
    """Write the object `key` to `path` in chunks; returns its size in bytes."""
    body = s3.get_object(Bucket=bucket, Key=key)["Body"]
    size = 0
    with path.open("wb") as out:
        for chunk in body.iter_chunks(CHUNK_BYTES):
            out.write(chunk)
            size += len(chunk)
    return size


def upload(s3: S3Client, bucket: str, key: str, path: Path, *, content_type: str) -> Stored:
    """Store the file at `path` as `key` (multipart above one part), part by part; its size and SHA-256."""
    digest = hashlib.sha256()
    size = path.stat().st_size
    with path.open("rb") as source:
        if size <= PART_BYTES:
            data = source.read()
            digest.update(data)
            s3.put_object(Bucket=bucket, Key=key, Body=data, ContentType=content_type)
            return Stored(size, digest.hexdigest())
        upload_id = s3.create_multipart_upload(Bucket=bucket, Key=key, ContentType=content_type)["UploadId"]
        try:
            parts: list[CompletedPartTypeDef] = []
            number = 1
            while part := source.read(PART_BYTES):
                digest.update(part)
                etag = s3.upload_part(Bucket=bucket, Key=key, UploadId=upload_id, PartNumber=number, Body=part)["ETag"]
                parts.append({"ETag": etag, "PartNumber": number})
                number += 1
            s3.complete_multipart_upload(Bucket=bucket, Key=key, UploadId=upload_id, MultipartUpload={"Parts": parts})
        except BaseException:
            s3.abort_multipart_upload(Bucket=bucket, Key=key, UploadId=upload_id)
            raise
    return Stored(size, digest.hexdigest())


def delete_prefix(s3: S3Client, bucket: str, prefix: str) -> int:
    """Delete every object under `prefix`; returns how many."""
    deleted = 0
    token: str | None = None
    while True:
        listing = (
            s3.list_objects_v2(Bucket=bucket, Prefix=prefix, ContinuationToken=token)
            if token
            else s3.list_objects_v2(Bucket=bucket, Prefix=prefix)
        )
        keys = [{"Key": entry["Key"]} for entry in listing.get("Contents", [])]
        if keys:
            s3.delete_objects(Bucket=bucket, Delete={"Objects": keys, "Quiet": True})  # type: ignore[typeddict-item]
            deleted += len(keys)
        if not listing.get("IsTruncated"):
            return deleted
        token = listing.get("NextContinuationToken")
