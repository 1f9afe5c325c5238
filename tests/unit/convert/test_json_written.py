"""JSON written once where a result is made: kept as its text, pickled as it, copied into the answer as it is."""

from __future__ import annotations

import pickle
from dataclasses import dataclass

import orjson
import pytest

from fileapi.convert.json_written import JsonArray, dumps


@dataclass(frozen=True)
class Holder:
    name: str
    items: JsonArray[dict[str, int]]


def test_a_json_array_reads_as_the_list_it_holds() -> None:
    array: JsonArray[dict[str, int]] = JsonArray(b'[{"n":1},{"n":2},{"n":3}]')
    assert len(array) == 3
    assert array[1] == {"n": 2}
    assert array[-1:] == [{"n": 3}]
    assert [item["n"] for item in array] == [1, 2, 3]
    assert array == [{"n": 1}, {"n": 2}, {"n": 3}]
    assert array == JsonArray(b'[ {"n":1}, {"n":2}, {"n":3} ]')
    assert array != [{"n": 1}]


def test_a_json_array_pickles_as_its_text_alone() -> None:
    text = orjson.dumps([{"type": "added", "text": str(n)} for n in range(10_000)])
    array: JsonArray[dict[str, str]] = JsonArray(text)
    assert array[0] == {"type": "added", "text": "0"}  # parsed: the items are not pickled all the same
    pickled = pickle.dumps(array, protocol=pickle.HIGHEST_PROTOCOL)
    assert len(text) < len(pickled) < len(text) + 200
    assert pickle.loads(pickled).text == text


def test_dumps_writes_a_json_array_as_its_text() -> None:
    holder = Holder("x", JsonArray(b'[{"n":1}]'))
    assert dumps(holder) == b'{"name":"x","items":[{"n":1}]}'
    assert dumps({"list": [holder]}) == b'{"list":[{"name":"x","items":[{"n":1}]}]}'


def test_dumps_refuses_what_is_not_plain_data() -> None:
    with pytest.raises(TypeError, match="not JSON serializable: object"):
        dumps({"x": object()})


def test_a_json_array_holds_an_array() -> None:
    with pytest.raises(TypeError, match="JSON array"):
        len(JsonArray(b'{"n":1}'))
