"""The API's JSON shapes as Pydantic models: one declaration gives the validation, the OpenAPI schema,
the docs and the SDKs' types.

Fields are snake_case in Python and camelCase on the wire (an alias generator), as the contract spells
them; the account endpoints keep the contract's own snake_case names (`ContractModel`). A light module:
pydantic only, never a converter's libraries.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class ApiModel(BaseModel):
    """A request or response object with camelCase names on the wire."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, from_attributes=True)


class ContractModel(BaseModel):
    """An object whose wire names are the contract's snake_case names."""

    model_config = ConfigDict(from_attributes=True)


def example(value: dict[str, Any]) -> ConfigDict:
    """A model configuration with `value` as the schema's example (as it appears on the wire)."""
    return ConfigDict(json_schema_extra={"examples": [value]})


Base64Text = Annotated[str, Field(json_schema_extra={"format": "byte"})]
"""Bytes carried in JSON as Base64 text (format byte)."""


class QueryOptions(BaseModel):
    """An endpoint's query parameters as one model (`Annotated[Options, Query()]`): camelCase names, and
    only those (a snake_case name is an unknown parameter, ignored, as for any other)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=False)
