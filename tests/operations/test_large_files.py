"""The issue's large inputs through the executor and the queue: a 1,200-page scan-like PDF of about 120 MB
(split, merged with itself, compressed) and a 100 MB PNG converted to WebP. Each takes minutes on this
machine, so they are marked `large` and run by `make test-large`, not by `make test`. Memory is measured
in `make bench` (the operations rows), not asserted here."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from fileapi.metering.meter import Meter
from fileapi.operations.records import Status
from fileapi.operations.services import FileServices
from fileapi.operations.transfer import upload
from fileapi.operations.uploads import UploadService
from tests.conftest import MakeKey
from tests.operations.large_inputs import noise_png, scan_like_pdf

pytestmark = pytest.mark.large


def _stored_upload(files: FileServices, meter: Meter, key: str, path: Path, content_type: str) -> tuple[str, str]:
    """An upload of the key's account holding the file at `path` (multipart, as a client's large POST)."""
    admission = meter.admit(f"Bearer {key}", counted=False, request_id=f"req-{path.name}")
    uploads: UploadService = files.uploads
    made, _ = uploads.create(
        admission.account_id, "business", filename=path.name, content_type=content_type, size=path.stat().st_size
    )
    upload(uploads.s3, uploads.bucket, made.key, path, content_type=content_type)
    return made.id, admission.account_id


def _run(files: FileServices, meter: Meter, key: str, route: str, uploads: list[str], **options: str) -> list[str]:
    admission = meter.admit(f"Bearer {key}", counted=True, request_id=f"req-{route}-{len(uploads)}-{options}")
    operation = files.operations.submit(admission, route=route, options=options, upload_ids=uploads)
    ended = files.executor(meter).run(operation.id)
    assert ended is not None and ended.status is Status.SUCCEEDED, ended
    hashes = []
    for index, result in enumerate(ended.results):
        key_name = f"results/{ended.account_id}/{ended.id}/{index}"
        body = files.uploads.s3.get_object(Bucket=files.settings.bucket, Key=key_name)["Body"]
        digest = hashlib.sha256()
        for chunk in body.iter_chunks(1024 * 1024):
            digest.update(chunk)
        assert digest.hexdigest() == result.sha256
        hashes.append(result.sha256)
    return hashes


def test_a_1200_page_scan_is_split_merged_and_compressed(
    files: FileServices, meter: Meter, make_key: MakeKey, tmp_path: Path
) -> None:
    key = make_key()
    source = scan_like_pdf(tmp_path / "scan.pdf", pages=1200)
    assert source.stat().st_size > 100_000_000
    upload_id, _ = _stored_upload(files, meter, key, source, "application/pdf")
    assert len(_run(files, meter, key, "/v1/pdf/split", [upload_id], ranges="1-600,601-1200")) == 2
    assert len(_run(files, meter, key, "/v1/pdf/merge", [upload_id, upload_id])) == 1
    assert len(_run(files, meter, key, "/v1/pdf/compress", [upload_id])) == 1


def test_a_100_mb_png_becomes_webp(files: FileServices, meter: Meter, make_key: MakeKey, tmp_path: Path) -> None:
    key = make_key()
    source = noise_png(tmp_path / "big.png", target_bytes=100_000_000)
    assert source.stat().st_size >= 100_000_000
    upload_id, _ = _stored_upload(files, meter, key, source, "image/png")
    assert len(_run(files, meter, key, "/v1/image/convert", [upload_id], to="webp")) == 1
