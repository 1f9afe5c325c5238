"""Which conversion arguments are files on disk (fileapi.isolation.files.has_file_inputs): a FileInput, or a
non-empty list of them, positional or by keyword; anything else is not."""

from __future__ import annotations

from typing import Any

import pytest

from fileapi.isolation.files import FileInput, has_file_inputs

FILE = FileInput("/tmp/input.pdf")


@pytest.mark.parametrize(
    ("args", "kwargs", "expected"),
    [
        ((b"bytes",), {"url_safe": False, "padding": True}, False),
        ((), {}, False),
        ((FILE,), {}, True),
        ((b"bytes",), {"document": FILE}, True),
        (([FILE, FILE],), {}, True),
        ((), {"files": [FILE]}, True),
        (([],), {"pages": []}, False),
        (([b"a", b"b"],), {"pages": [1, 2]}, False),
        (([FILE, b"b"],), {}, False),
    ],
)
def test_files_are_told_from_other_arguments(args: tuple[Any, ...], kwargs: dict[str, Any], expected: bool) -> None:
    assert has_file_inputs(args, kwargs) is expected
