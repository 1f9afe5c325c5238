"""No library a conversion calls writes a record quoting the input: pypdf warns with a form value's text
when its font cannot encode it, and without fileapi.library_logs that record reaches standard error."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from tests.pdf_fixtures import make_form_pdf

SENTINEL = "SNTNL41c7 \u03c0\u02ac"  # pi and a Latin letter Helvetica's encoding has not: pypdf warns

FILL = """
import sys
from fileapi import library_logs
if sys.argv[2] == "silenced":
    library_logs.silence()
from fileapi.convert.pdf_forms import fill_form
fill_form(open(sys.argv[1], "rb").read(), fields={"name": %r})
"""


def fill_in_a_fresh_process(tmp_path: Path, mode: str) -> str:
    form = tmp_path / "form.pdf"
    form.write_bytes(make_form_pdf())
    done = subprocess.run(
        [sys.executable, "-c", FILL % SENTINEL, str(form), mode], capture_output=True, text=True, check=True
    )
    return done.stdout + done.stderr


@pytest.mark.parametrize(("mode", "quoted"), [("silenced", False), ("as the library leaves it", True)])
def test_a_library_record_quoting_the_input_reaches_no_stream(tmp_path: Path, mode: str, quoted: bool) -> None:
    assert ("SNTNL41c7" in fill_in_a_fresh_process(tmp_path, mode)) is quoted


def test_a_conversion_worker_writes_no_library_record(capfd: pytest.CaptureFixture[str]) -> None:
    """A worker's standard error is the server's (inherited): a fill there quotes nothing."""
    from fileapi.convert.pdf_forms import fill_form
    from fileapi.isolation.pool import MIB, WorkerPool

    workers = WorkerPool(1, memory_bytes=512 * MIB)
    workers.start()
    try:
        filled = asyncio.run(
            workers.run(fill_form, make_form_pdf(), fields={"name": SENTINEL}, seconds=20, max_response_bytes=1 << 24)
        )
    finally:
        workers.close()
    assert filled.startswith(b"%PDF")
    captured = capfd.readouterr()
    assert "SNTNL41c7" not in captured.out + captured.err
