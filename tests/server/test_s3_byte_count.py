"""bench.moto_stack counts every object body an S3 client moves: PutObject, each part of a multipart upload,
GetObject; a copy inside S3 (bytes it would not see) fails the bench instead of being left out."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench.moto_stack import Moved, count_s3_bytes
from fileapi.file_services import FileServices
from fileapi.operations.transfer import PART_BYTES, download, upload

pytestmark = pytest.mark.server


def test_puts_parts_and_gets_are_counted_each_way(files: FileServices, tmp_path: Path) -> None:
    s3, bucket = files.uploads.s3, files.uploads.bucket
    moved = Moved()
    count_s3_bytes(s3, moved)
    small, large = tmp_path / "small", tmp_path / "large"
    small.write_bytes(os.urandom(1000))
    large.write_bytes(os.urandom(PART_BYTES + 123_456))  # two parts: a multipart upload
    upload(s3, bucket, "small", small, content_type="application/octet-stream")
    upload(s3, bucket, "large", large, content_type="application/octet-stream")
    assert moved.service_sent == 1000 + PART_BYTES + 123_456
    assert download(s3, bucket, "large", tmp_path / "back") == PART_BYTES + 123_456
    assert moved.service_received == PART_BYTES + 123_456
    assert moved.total == moved.service_sent + moved.service_received
    moved.reset()
    assert moved == Moved()


def test_a_copy_inside_s3_is_refused(files: FileServices) -> None:
    s3, bucket = files.uploads.s3, files.uploads.bucket
    s3.put_object(Bucket=bucket, Key="a", Body=b"data")
    count_s3_bytes(s3, Moved())
    with pytest.raises(RuntimeError, match="CopyObject"):
        s3.copy_object(Bucket=bucket, Key="b", CopySource={"Bucket": bucket, "Key": "a"})
