"""Data converters against inputs that expand: refused (413) from their predicted size before the
output is built, under the response limit of the running conversion; and the linear header
de-duplication gives the answers of the quadratic one it replaced."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fileapi.convert.csv_json import csv_to_json, header_names, json_to_csv
from fileapi.convert.json_text import format_json, formatted_size
from fileapi.convert.payload import response_limit
from fileapi.errors import TooLarge

LIMIT = 6_291_556  # Lambda's, as the web layer sets it


def quadratic_header_names(cells: list[str]) -> list[str]:
    """The de-duplication csv_to_json used before: each repeated name tries _2, _3... from 2."""
    names: list[str] = []
    seen: set[str] = set()
    for index, cell in enumerate(cells, start=1):
        name = cell or f"column{index}"
        candidate, suffix = name, 2
        while candidate in seen:
            candidate, suffix = f"{name}_{suffix}", suffix + 1
        seen.add(candidate)
        names.append(candidate)
    return names


# Cells drawn from a few names, their suffixed forms and the generated ones, so that collisions are common.
CELLS = st.lists(
    st.sampled_from(["", "a", "b", "a_2", "a_3", "a_2_2", "b_2", "column1", "column2", "column3_2", "x_1"]),
    max_size=40,
)


@given(CELLS)
def test_linear_header_names_equal_the_quadratic_ones(cells: list[str]) -> None:
    assert header_names(cells) == quadratic_header_names(cells)


def test_twenty_thousand_repeated_names_are_suffixed_in_order() -> None:
    names = header_names(["a"] * 20_000)
    assert (names[0], names[1], names[-1], len(set(names))) == ("a", "a_2", "a_20000", 20_000)


def test_csv_rows_whose_json_would_not_fit_are_refused_while_reading() -> None:
    header = ",".join(f"c{i}" for i in range(2000))
    with (
        response_limit(LIMIT),
        pytest.raises(TooLarge, match="the JSON of the first 302 rows of 2,000 fields") as refused,
    ):
        csv_to_json((header + "\n" + "x\n" * 20_000).encode())
    assert "over the response limit of 6,291,556 bytes" in str(refused.value)


def test_csv_without_a_header_is_bounded_too() -> None:
    with response_limit(LIMIT), pytest.raises(TooLarge, match="rows, up to line"):
        csv_to_json(b",,,,,,,,,\n" * 300_000, header=False)


def test_csv_just_under_the_limit_converts() -> None:
    header = ",".join(f"c{i}" for i in range(2000))
    with response_limit(LIMIT):
        records = json.loads(csv_to_json((header + "\n" + "x\n" * 250).encode()))
    assert (len(records), records[-1]["c0"], records[-1]["c1999"]) == (250, "x", "")


def test_json_to_csv_of_disjoint_keys_is_refused_from_rows_times_columns() -> None:
    body = ("[" + ",".join(f'{{"k{i}":1}}' for i in range(20_000)) + "]").encode()
    with response_limit(LIMIT), pytest.raises(TooLarge, match="20,000 rows by 20,000 columns"):
        json_to_csv(body)


def test_json_to_csv_of_shared_keys_converts() -> None:
    body = ("[" + ",".join(f'{{"a":{i},"b":2}}' for i in range(20_000)) + "]").encode()
    with response_limit(LIMIT):
        assert json_to_csv(body).count(b"\r\n") == 20_001


def test_deeply_nested_json_formatted_with_a_wide_indent_is_refused_before_it_is_written() -> None:
    body = ("[" + ",".join(["[" * 1000 + "]" * 1000] * 200) + "]").encode()
    assert formatted_size(body, 8) == 1_600_800_003
    with response_limit(LIMIT), pytest.raises(TooLarge, match="use a smaller indent or json-minify"):
        format_json(body, indent=8)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='ab "\\\n\u00e9', max_size=4),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(alphabet='ab"\\', max_size=3), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(JSON_VALUES, st.integers(min_value=1, max_value=8), st.sampled_from([None, 0, 3]))
def test_formatted_size_is_the_size_of_the_formatted_text(value: object, indent: int, spacing: int | None) -> None:
    body = json.dumps(value, indent=spacing).encode()
    assert formatted_size(body, indent) == len(format_json(body, indent=indent))
