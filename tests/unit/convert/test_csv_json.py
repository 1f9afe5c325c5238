from __future__ import annotations

import csv
import io
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fileapi.convert.csv_json import csv_to_json, detect_delimiter, json_to_csv
from fileapi.errors import InvalidInput


def rows(data: bytes) -> object:
    return json.loads(csv_to_json(data))


def test_header_row_gives_keys() -> None:
    assert rows(b"a,b\n1,2\n3,4\n") == [{"a": "1", "b": "2"}, {"a": "3", "b": "4"}]


def test_quoted_fields_keep_commas_quotes_and_newlines() -> None:
    data = b'a,b\r\n"x, y","say ""hi""\r\nthere"\r\n'
    assert rows(data) == [{"a": "x, y", "b": 'say "hi"\r\nthere'}]


def test_bom_and_utf8_are_handled() -> None:
    assert rows("\ufeffname\nJosé\n".encode()) == [{"name": "José"}]


def test_invalid_utf8_is_rejected() -> None:
    with pytest.raises(InvalidInput, match="not valid UTF-8"):
        csv_to_json(b"a\n\xff\n")


@pytest.mark.parametrize(
    ("text", "sep"), [("a;b\n1;2", ";"), ("a\tb\n1\t2", "\t"), ("a|b\n1|2", "|"), ("a,b\n1,2", ",")]
)
def test_delimiter_is_detected(text: str, sep: str) -> None:
    assert detect_delimiter(text) == sep
    assert rows(text.encode()) == [{"a": "1", "b": "2"}]


def test_detection_prefers_the_consistent_delimiter() -> None:
    assert detect_delimiter('name,comment\nx,"a; b; c"\ny,"d; e"\n') == ","


def test_explicit_delimiter() -> None:
    assert json.loads(csv_to_json(b"a:b\n1:2", delimiter=":")) == [{"a": "1", "b": "2"}]


def test_bad_delimiter_is_rejected() -> None:
    with pytest.raises(InvalidInput, match="delimiter"):
        csv_to_json(b"a", delimiter='"')


def test_short_rows_are_padded_and_long_rows_rejected() -> None:
    assert rows(b"a,b,c\n1\n") == [{"a": "1", "b": "", "c": ""}]
    with pytest.raises(InvalidInput, match="line 3 has 3 fields but the header has 2"):
        csv_to_json(b"a,b\n1,2\n1,2,3\n")


def test_empty_and_repeated_header_names() -> None:
    assert rows(b"a,,a\n1,2,3\n") == [{"a": "1", "column2": "2", "a_2": "3"}]


def test_without_header_rows_are_arrays() -> None:
    assert json.loads(csv_to_json(b"1,2\n\n3,4\n", header=False)) == [["1", "2"], ["3", "4"]]


def test_empty_csv_is_an_empty_array() -> None:
    assert rows(b"") == []
    assert rows(b"a,b\n") == []


def test_bad_quoting_is_rejected_with_the_line() -> None:
    with pytest.raises(InvalidInput, match="malformed near line 2"):
        csv_to_json(b'a,b\n"x"y,2\n')


def test_json_to_csv_unions_keys_in_first_seen_order() -> None:
    out = json_to_csv(b'[{"b":1,"a":"x"},{"c":true,"a":null}]')
    assert out == b"b,a,c\r\n1,x,\r\n,,true\r\n"


def test_json_to_csv_writes_nested_values_as_json_and_numbers_exactly() -> None:
    out = json_to_csv(b'[{"n":1.10,"big":123456789012345678901,"o":{"k":[1,2.50]},"s":"a,\\"b\\""}]')
    assert list(csv.reader(io.StringIO(out.decode()))) == [
        ["n", "big", "o", "s"],
        ["1.10", "123456789012345678901", '{"k":[1,2.50]}', 'a,"b"'],
    ]


def test_json_to_csv_escapes_formulas_by_default() -> None:
    out = json_to_csv(b'[{"f":"=SUM(A1)","g":"+1","h":"-x","i":"@x","n":-5,"=k":"ok"}]')
    assert out == b"f,g,h,i,n,'=k\r\n'=SUM(A1),'+1,'-x,'@x,-5,ok\r\n"
    assert json_to_csv(b'[{"f":"=1"}]', escape_formulas=False) == b"f\r\n=1\r\n"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (b'{"a":1}', "must be an array of objects, not an object"),
        (b"[1]", "element 0 of the array is a number"),
        (b'[{"a":1},"x"]', "element 1 of the array is a string"),
        (b"[NaN]", "not valid JSON"),
        (b"[" * 100_000, "not valid JSON"),
        (b'[{"a":"x\\ud800"}]', r"a string of the JSON holds a lone surrogate \(U\+D800\): send text that is"),
        (b'[{"\\udfff":1}]', r"lone surrogate \(U\+DFFF\)"),
        (b'[{"a":{"b":["\\ud800"]}}]', r"lone surrogate \(U\+D800\)"),
    ],
)
def test_json_to_csv_rejects_what_is_not_an_array_of_objects(text: bytes, reason: str) -> None:
    with pytest.raises(InvalidInput, match=reason):
        json_to_csv(text)


def test_json_to_csv_of_empty_array_is_empty() -> None:
    assert json_to_csv(b"[]") == b""


cell = st.text(alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), max_size=12)


@given(st.lists(st.fixed_dictionaries({"a": cell, "b": cell}), min_size=1, max_size=6))
def test_csv_json_round_trip(records: list[dict[str, str]]) -> None:
    csv_text = json_to_csv(json.dumps(records).encode(), escape_formulas=False)
    assert json.loads(csv_to_json(csv_text, delimiter=",")) == records
