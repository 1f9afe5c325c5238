"""CSV to JSON and JSON to CSV (RFC 4180 dialect, any single-character delimiter)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator

import orjson

from fileapi.convert import payload
from fileapi.convert.encoding import decode_utf8, encode_utf8
from fileapi.errors import InvalidInput, TooLarge

CANDIDATE_DELIMITERS = (",", ";", "\t", "|")
# Fields may be as long as a whole request body (the csv module's default cap is 128 KiB).
csv.field_size_limit(max(csv.field_size_limit(), 64 * 1024 * 1024))
_SNIFF_ROWS = 20
_SNIFF_CHARS = 64 * 1024
# Cells starting with these are formulas to a spreadsheet (OWASP "CSV injection").
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def check_delimiter(delimiter: str) -> str:
    """Return `delimiter` if it is one character other than a quote, CR or LF.

    :raises InvalidInput: otherwise.
    """
    if len(delimiter) != 1 or delimiter in '"\r\n':
        raise InvalidInput(f"delimiter must be one character other than '\"', CR or LF, not {delimiter!r}")
    return delimiter


def csv_to_json(data: bytes, *, delimiter: str | None = None, header: bool = True) -> bytes:
    """Convert CSV to a JSON array.

    :param delimiter: field separator; None detects one of ``, ; TAB |`` from the first rows.
    :param header: the first row names the fields: each later row becomes an object with
        string values (a short row gets "" for its missing fields; an empty header cell is
        named ``columnN`` and a repeated name gets ``_2``, ``_3``...). Without a header each
        row is an array of strings.
    :returns: compact UTF-8 JSON. Blank lines are skipped; quoted fields keep commas,
        quotes and line breaks (CRLF inside quotes is kept as CRLF).
    :raises InvalidInput: not UTF-8, bad quoting, or a row with more fields than the header.
    """
    text = decode_utf8(data, what="CSV")
    sep = check_delimiter(delimiter) if delimiter is not None else detect_delimiter(text)
    rows = _read_rows(text, sep)
    limit = payload.limit()
    size = 2  # the brackets
    if not header:
        arrays: list[list[str]] = []
        for line, row in rows:
            size += 3 * len(row) + sum(map(len, row)) + 1  # quotes and commas at least
            if limit is not None and size > limit:
                raise _too_much_json(size, line, len(arrays) + 1)
            arrays.append(row)
        return orjson.dumps(arrays)
    first = next(rows, None)
    if first is None:
        return b"[]"
    names = header_names(first[1])
    # every object has every field: `"name":"",` at least, for a short row too
    per_record = 2 + sum(len(orjson.dumps(name)) + 4 for name in names)
    records: list[dict[str, str]] = []
    for line, row in rows:
        if len(row) > len(names):
            raise InvalidInput(f"CSV row at line {line} has {len(row)} fields but the header has {len(names)}")
        size += per_record + sum(map(len, row))
        if limit is not None and size > limit:
            raise _too_much_json(size, line, len(records) + 1, columns=len(names))
        record = dict(zip(names, row, strict=False))
        for name in names[len(row) :]:
            record[name] = ""
        records.append(record)
    return orjson.dumps(records)


def _too_much_json(size: int, line: int, rows: int, *, columns: int | None = None) -> TooLarge:
    shape = f"{rows:,} rows of {columns:,} fields each (a short row gets every field)" if columns else f"{rows:,} rows"
    return payload.too_large(
        f"the JSON of the first {shape}, up to line {line},",
        size,
        binary=False,
        hint="send fewer rows or columns, or header=false to get arrays without the field names",
    )


def detect_delimiter(text: str) -> str:
    """Pick the candidate delimiter that splits the first rows into the most, equally many, fields."""
    sample = text[:_SNIFF_CHARS]
    best, best_score = ",", (0, 0)
    for candidate in CANDIDATE_DELIMITERS:
        if candidate not in sample:
            continue
        widths = _sample_widths(sample, candidate)
        if not widths or widths[0] < 2:
            continue
        consistent = sum(1 for width in widths if width == widths[0])
        score = (consistent, widths[0])
        if score > best_score:
            best, best_score = candidate, score
    return best


def _sample_widths(sample: str, delimiter: str) -> list[int]:
    reader = csv.reader(io.StringIO(sample, newline=""), delimiter=delimiter)
    widths: list[int] = []
    try:
        for row in reader:
            if row:
                widths.append(len(row))
            if len(widths) >= _SNIFF_ROWS:
                break
    except csv.Error:
        pass  # the sample may end inside a quoted field
    return widths[:-1] if len(widths) > 1 and len(sample) == _SNIFF_CHARS else widths


def _read_rows(text: str, delimiter: str) -> Iterator[tuple[int, list[str]]]:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        for row in reader:
            if row:
                yield reader.line_num, row
    except csv.Error as exc:
        raise InvalidInput(f"CSV is malformed near line {reader.line_num}: {exc}") from None


def header_names(cells: list[str]) -> list[str]:
    """Field names from header cells: an empty cell is ``columnN`` (N its 1-based position), and a
    name already taken gets the first free suffix ``_2``, ``_3``... in the order the cells come.

    Linear: each name remembers the next suffix to try. Suffixes below it were taken when tried, and
    names stay taken, so the first free one is never below it; and a taken ``name_k`` is skipped for
    one name only, since ``k`` has no underscore and so ``name_k`` splits one way.
    """
    names: list[str] = []
    seen: set[str] = set()
    next_suffix: dict[str, int] = {}
    for index, cell in enumerate(cells, start=1):
        name = cell or f"column{index}"
        candidate = name
        if candidate in seen:
            suffix = next_suffix.get(name, 2)
            candidate = f"{name}_{suffix}"
            while candidate in seen:
                suffix += 1
                candidate = f"{name}_{suffix}"
            next_suffix[name] = suffix + 1
        seen.add(candidate)
        names.append(candidate)
    return names


class _Number(str):
    """A JSON number kept as the text it was written as."""


def _reject_constant(name: str) -> object:
    raise InvalidInput(f"not valid JSON: {name} is not a JSON value")


def json_to_csv(data: bytes, *, delimiter: str | None = None, escape_formulas: bool = True) -> bytes:
    """Convert a JSON array of objects to CSV (RFC 4180: CRLF line ends, quotes doubled).

    The header is the union of the objects' keys in first-seen order. Strings are written
    as they are, numbers exactly as written in the input, true/false as ``true``/``false``,
    null and missing keys as empty cells, nested objects and arrays as compact JSON text.

    :param escape_formulas: prefix ``'`` to string cells (and header names) that start
        with ``= + - @`` TAB or CR, so that spreadsheets do not run them as formulas.
    :raises InvalidInput: not JSON, not an array, or an element that is not an object.
    """
    sep = check_delimiter(delimiter or ",")  # no delimiter: a comma
    text = decode_utf8(data, what="JSON")
    try:
        value = json.loads(text, parse_int=_Number, parse_float=_Number, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"not valid JSON: {exc}") from None
    except RecursionError:
        raise InvalidInput("not valid JSON: nested too deeply") from None
    if not isinstance(value, list):
        raise InvalidInput(f"JSON body must be an array of objects, not {_json_type(value)}")
    columns: dict[str, None] = {}
    for index, item in enumerate(value):
        if not isinstance(item, dict):
            raise InvalidInput(f"element {index} of the array is {_json_type(item)}, not an object")
        columns.update(dict.fromkeys(item))
    # every row has a cell in every column: a separator each and a line end at least
    payload.check(
        f"the CSV of {len(value):,} rows by {len(columns):,} columns (the union of the objects' keys)",
        (len(value) + 1) * (len(columns) + 1),
        binary=False,
        hint="send fewer objects, or objects that share their keys",
    )
    out = io.StringIO(newline="")
    writer = csv.writer(out, delimiter=sep, lineterminator="\r\n")
    if columns:
        writer.writerow(_guard(name, escape_formulas) for name in columns)
    try:
        for item in value:
            writer.writerow(_cell(item.get(name), escape_formulas) for name in columns)
    except RecursionError:
        raise InvalidInput("not valid JSON: nested too deeply") from None
    return encode_utf8(out.getvalue(), what="a string of the JSON", at=False)


def _cell(value: object, escape_formulas: bool) -> str:
    if value is None:
        return ""
    if isinstance(value, _Number):
        return str.__str__(value)
    if isinstance(value, str):
        return _guard(value, escape_formulas)
    if isinstance(value, bool):
        return "true" if value else "false"
    return _compact_json(value)


def _guard(text: str, escape_formulas: bool) -> str:
    return "'" + text if escape_formulas and text.startswith(FORMULA_PREFIXES) else text


def _compact_json(value: object) -> str:
    """JSON text of a nested value, numbers kept as written."""
    if isinstance(value, _Number):
        return str.__str__(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{_quote(k)}:{_compact_json(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_compact_json(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _quote(key: str) -> str:
    return json.dumps(key, ensure_ascii=False)


def _json_type(value: object) -> str:
    names: Iterable[tuple[type, str]] = (
        (bool, "a boolean"),
        (_Number, "a number"),
        (str, "a string"),
        (list, "an array"),
        (dict, "an object"),
    )
    if value is None:
        return "null"
    return next((name for kind, name in names if isinstance(value, kind)), "a value")
