"""A request whose query gives none of its options gets the options model's default instance, validated once and
shared (fileapi.web.binding.QueryModel.default): the same options, and the same arguments for the converter, as
validating an empty query each time would give."""

from __future__ import annotations

import pydantic
import pytest

from fileapi.catalogue.registry import every
from fileapi.models import QueryOptions, wire_names
from fileapi.web.binding import QueryModel, options_arguments

OPTIONS = sorted({conversion.options for conversion in every() if conversion.options is not None}, key=str)


def query_model(model: type[QueryOptions]) -> QueryModel:
    return QueryModel("options", model, wire_names(model))


@pytest.mark.parametrize("model", [model for model in OPTIONS if issubclass(model, QueryOptions)], ids=str)
def test_the_default_options_are_those_of_an_empty_query(model: type[QueryOptions]) -> None:
    try:
        validated = model.model_validate({})
    except pydantic.ValidationError:
        assert query_model(model).default is None  # a required option: each request gets its errors
        return
    default = query_model(model).default
    assert default == validated and default.model_fields_set == validated.model_fields_set == set()
    first, second = options_arguments(default), options_arguments(default)
    assert first == second == validated.model_dump()
    assert first is not second  # a new dict each time: a caller's change never reaches the next request


def test_options_are_frozen_so_one_instance_can_serve_every_request() -> None:
    model = next(model for model in OPTIONS if issubclass(model, QueryOptions) and model.model_fields)
    default = query_model(model).default
    assert default is not None
    with pytest.raises(pydantic.ValidationError):
        setattr(default, next(iter(model.model_fields)), None)


def test_options_given_in_the_query_or_holding_lists_are_dumped_each_time() -> None:
    class Options(QueryOptions):
        pages: tuple[int, ...] = ()
        text: list[str] = pydantic.Field(default_factory=list)

    default = query_model(Options).default
    assert default is not None
    assert options_arguments(default)["text"] is not options_arguments(default)["text"]  # a list is never shared
    given = Options.model_validate({"text": ["a"]})
    assert options_arguments(given) == {"pages": (), "text": ["a"]}
    assert options_arguments(given)["text"] is not options_arguments(given)["text"]
