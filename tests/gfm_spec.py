"""The GFM spec's examples (cmark-gfm's spec.txt, installed by Debian's cmark-gfm package) and the
cmark-gfm command line as the reference renderer, for the Markdown tests and benchmark."""

from __future__ import annotations

import gzip
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

SPEC = Path("/usr/share/doc/cmark-gfm/spec.txt.gz")
FENCE = "`" * 32
EXTENSIONS = ("table", "strikethrough", "autolink", "tagfilter", "tasklist")


@dataclass(frozen=True)
class Example:
    number: int
    extension: str  # the one extension the spec's runner turns on for it ('' for none)
    markdown: str
    html: str


def examples(path: Path = SPEC) -> list[Example]:
    """The spec's examples in order, without the ones it marks disabled (671 of 673)."""
    lines = gzip.decompress(path.read_bytes()).decode("utf-8").split("\n")
    found: list[Example] = []
    number = 0
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith(FENCE + " example"):
            extension = line[len(FENCE + " example") :].strip()
            markdown, html = [], []
            index += 1
            while lines[index] != ".":
                markdown.append(lines[index])
                index += 1
            index += 1
            while lines[index] != FENCE:
                html.append(lines[index])
                index += 1
            number += 1
            if extension != "disabled":
                found.append(Example(number, extension, _text(markdown), _text(html)))
        index += 1
    return found


def _text(lines: list[str]) -> str:
    return "".join(line.replace("\u2192", "\t") + "\n" for line in lines)


def cmark_gfm(markdown: str, extensions: tuple[str, ...] = EXTENSIONS) -> str | None:
    """cmark-gfm's HTML for `markdown` with `extensions` and raw HTML allowed (None: not installed)."""
    if shutil.which("cmark-gfm") is None:
        return None
    argv = ["cmark-gfm", "--unsafe"]
    for extension in extensions:
        argv += ["-e", extension]
    return subprocess.run(argv, input=markdown.encode(), capture_output=True, check=True).stdout.decode()
