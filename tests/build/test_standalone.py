"""The repository stands alone: its README and docs link only to files inside it, and its tests pass in a copy
of it with nothing beside it (no ../shared: every corpus test skips, saying why)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [PROJECT_ROOT / "README.md", *sorted((PROJECT_ROOT / "docs").glob("*.md"))]
# [text](target) links whose target is not a URL or a fragment.
_LINK = re.compile(r"\]\((?!https?://|mailto:|#)([^)#\s]+)")
# Paths written in code spans that leave the repository.
_OUTSIDE = re.compile(r"`(\.\./[^`]*)`")


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_links_point_at_files_inside_the_repository(document: Path) -> None:
    text = document.read_text(encoding="utf-8")
    for target in _LINK.findall(text):
        resolved = (document.parent / target).resolve()
        assert resolved.is_relative_to(PROJECT_ROOT), f"{document.name} links outside: {target}"
        assert resolved.exists(), f"{document.name} links to a missing file: {target}"
    for path in _OUTSIDE.findall(text):
        resolved = (document.parent / path).resolve()
        assert resolved.is_relative_to(PROJECT_ROOT), f"{document.name} names a path outside: {path}"


def test_the_corpus_tests_skip_in_a_copy_with_nothing_beside_it(tmp_path: Path) -> None:
    # GIVEN the project's files (tracked and new, as a clone would hold them) alone in a folder
    copy = tmp_path / "alone" / "project"
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True
    )
    for name in listed.stdout.splitlines():
        source = PROJECT_ROOT / name
        if source.is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    assert not (copy.parent / "shared").exists()
    # WHEN its corpus tests run there, against its own code
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(copy / "shared"), str(copy)])}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/corpus", "-q", "-p", "no:cacheprovider", "-rs", "-n", "0"],
        cwd=copy,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    # THEN every one of them skips, saying the corpus is absent, and none fails
    summary = result.stdout.strip().splitlines()[-1]
    assert result.returncode == 0, result.stdout[-3000:]
    assert re.fullmatch(r"\d+ skipped in [\d.]+s( \([\d:]+\))?", summary.strip("= ")), summary
    assert "the corpus folder" in result.stdout and "is absent" in result.stdout
