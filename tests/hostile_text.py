"""Hostile text inputs that expand (zip-like) or cost more than linear time, each built from a size
or count: Markdown tables and markup, CSV headers and short rows, nested JSON, JSON objects of
disjoint keys, diffs of scattered changes, text that percent-encoding triples. tests/bombs.py names
them with their expected answers."""

from __future__ import annotations

import json


def markdown_table(columns: int, rows: int) -> bytes:
    """A header of `columns` cells, then `rows` one-character rows (comrak gives each every column)."""
    return ("|a" * columns + "|\n" + "|-" * columns + "|\n" + "x\n" * rows).encode()


def markdown_emphasis(count: int) -> bytes:
    return b"*a* " * count


def markdown_references(uses: int, url_length: int) -> bytes:
    """One link reference of a long URL, used `uses` times (comrak stops expanding past the input's size)."""
    return b"[a]: http://x/" + b"y" * url_length + b"\n\n" + b"[a] " * uses


def csv_wide_short_rows(columns: int, rows: int) -> bytes:
    """A header of `columns` names, then `rows` rows of one cell (each object gets every field)."""
    return (",".join(f"c{index}" for index in range(columns)) + "\n" + "x\n" * rows).encode()


def csv_repeated_names(count: int) -> bytes:
    """A header of one name `count` times, and one row."""
    return ("a," * (count - 1) + "a\n" + "1," * (count - 1) + "1\n").encode()


def csv_empty_fields(rows: int, fields: int) -> bytes:
    """Rows of empty fields only: `,` becomes `"",` in JSON."""
    return ("," * (fields - 1) + "\n").encode() * rows


def json_nested_arrays(count: int, depth: int) -> bytes:
    """`count` arrays nested `depth` deep (json-format indents every line below each level)."""
    return ("[" + ",".join(["[" * depth + "]" * depth] * count) + "]").encode()


def json_disjoint_objects(count: int) -> bytes:
    """`count` objects of one key each, all different (json-to-csv gives every row every column)."""
    return ("[" + ",".join(f'{{"k{index}":1}}' for index in range(count)) + "]").encode()


def diff_every_other_line(lines: int) -> bytes:
    """Two texts of `lines` unique lines, every other one changed (difflib alone is quadratic here)."""
    a = "".join(f"{index}\n" for index in range(lines))
    b = "".join(f"{index}\n" if index % 2 else f"x{index}\n" for index in range(lines))
    return json.dumps({"a": a, "b": b}).encode()


def diff_all_lines(lines: int) -> bytes:
    """Two texts of one-byte lines that differ everywhere (every line is shown twice in the answer)."""
    return json.dumps({"a": "a\n" * lines, "b": "b\n" * lines}).encode()


def diff_unrelated(lines: int) -> bytes:
    """Two texts of `lines` lines each with no line in common (no anchor to cut the comparison at)."""
    a = "".join(f"old {index}\n" for index in range(lines))
    b = "".join(f"new {index}\n" for index in range(lines))
    return json.dumps({"a": a, "b": b}).encode()


def text_to_percent_encode(characters: int) -> bytes:
    """UTF-8 text of two-byte characters: each becomes six bytes of percent-encoding."""
    return ("é" * characters).encode()
