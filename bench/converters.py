"""Converter rows of the scoreboard that bench-quick runs too: word count and base64 through the request path."""

from __future__ import annotations

import os
import random
import shutil
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from bench.scoreboard import Goal, record
from bench.timing import command_seconds, median_seconds, row
from fileapi.convert.wordcount import count_text

FOUR_MB = 4 * 1024 * 1024
_TEXT_WORDS = (
    "the of and to in is it that was for on are with as his they be at one have this from or had by word but what "
    "some we can out other were all there when up use your how said an each she which do their time if will way "
    "café naïve Straße über señor façade résumé 日本語 中文 テキスト 한국어 привет мир “quoted” don’t e-mail 3.14"
)
_WORDS = _TEXT_WORDS.split(" ")


def sample_text(size: int = 100_000) -> bytes:
    """`size` bytes of prose-like UTF-8 text: mostly English words, about one in six beyond ASCII,
    sentences and paragraphs (the same text every run)."""
    rng = random.Random(21)
    parts: list[str] = []
    length = 0
    while length < size:
        sentence = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(4, 18))).capitalize()
        piece = sentence + rng.choice([". ", ". ", "? ", "! ", ".\n\n"])
        parts.append(piece)
        length += len(piece.encode())
    return "".join(parts).encode()[:size].decode(errors="ignore").encode()


def bench_wordcount(tmp: Path) -> None:
    print("\nWord count of 100 KB of text")
    text = sample_text()
    path = tmp / "words.txt"
    path.write_bytes(text)
    ours = median_seconds(lambda: count_text(text), repeat=15)
    wc = command_seconds(["wc", "-w"], stdin_path=str(path), repeat=15)  # context: the native tool's whole process
    print(row("text/word-count, 100 KB (converter)", ours, wc, "wc -w"))
    record(
        "Text",
        "word count, 100 KB",
        ours * 1000,
        "ms",
        Goal(max_value=10),
        anchor=wc and wc * 1000,
        anchor_name="wc -w",
    )


def bench_base64_path(request: Callable[[bytes], int], metering: Callable[[], object], tmp: Path) -> None:
    """base64-encode of 4 MB through the whole request path (body read, encoded, response written)
    against coreutils `base64 -w0` reading and writing the same bytes. The row is what the 4 MB cost
    above a 1 KiB request through the same path (the fixed cost per request is the stack's own row):
    the local store's round trip, tens of milliseconds of jitter on a shared machine, cancels out of
    that difference, not out of a subtraction of a separately timed admission (printed too).

    :param request: sends one POST /v1/data/base64-encode with the body through the app, returns the status.
    :param metering: one admission against the same store (what is taken off).
    """
    print("\nbase64-encode of 4 MB through the request path")
    blob = tmp / "blob.bin"
    blob.write_bytes(os.urandom(FOUR_MB))
    data = blob.read_bytes()
    assert request(data) == 200
    own: list[float] = []
    above_small: list[float] = []
    for _ in range(15):  # interleaved, so the store's jitter falls on both sides alike
        started = time.perf_counter()
        request(data)
        whole = time.perf_counter() - started
        started = time.perf_counter()
        metering()
        own.append(whole - (time.perf_counter() - started))
        started = time.perf_counter()
        request(b"x" * 1024)
        above_small.append(whole - (time.perf_counter() - started))
    ours = statistics.median(above_small)
    tool = command_seconds(["base64", "-w0"], stdin_path=str(blob), repeat=15)
    print(row("4 MB request above a 1 KiB request", ours, tool, "coreutils base64 -w0"))
    print(row("4 MB request less one timed admission", statistics.median(own)))
    missing = "" if shutil.which("base64") else "coreutils base64 not installed"
    record(
        "Data",
        "base64-encode 4 MB through the request path, above a 1 KiB request",
        ours * 1000,
        "ms",
        Goal(max_ratio=1.0),
        anchor=tool and tool * 1000,
        anchor_name="coreutils base64",
        missing=missing,
    )
