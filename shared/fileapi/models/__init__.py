"""The API's JSON shapes as Pydantic models: one declaration gives the validation, the OpenAPI schema,
the docs and the SDKs' types.

Fields are snake_case in Python and camelCase on the wire (an alias generator), as the contract spells
them; the account endpoints keep the contract's own snake_case names (`ContractModel`). A light module:
pydantic only, never a converter's libraries.
"""

from __future__ import annotations

from typing import Annotated, Any, Self

from pydantic import BaseModel, ConfigDict, Field, ModelWrapValidatorHandler, ValidationError, model_validator
from pydantic.alias_generators import to_camel
from pydantic_core import InitErrorDetails, PydanticCustomError

# The error type of a name a request model does not know; its `ctx["known"]` lists the names it does know (at
# that level), so the error mapping can say which one was meant (fileapi.web.errors).
UNKNOWN_NAME = "extra_forbidden"


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


class ClosedModel(BaseModel):
    """A request object that refuses names it does not know (extra="forbid"): a misspelled option is a 400 that
    names it, never silently the default. Each such error carries the names this level knows (`UNKNOWN_NAME`)."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="wrap")
    @classmethod
    def _name_known_fields(cls, data: Any, handler: ModelWrapValidatorHandler[Self]) -> Self:
        try:
            return handler(data)
        except ValidationError as exc:
            raise _with_known_names(exc, wire_names(cls)) from None


def wire_names(model: type[BaseModel]) -> tuple[str, ...]:
    """The names of `model`'s fields on the wire (their aliases), in declaration order."""
    return tuple(info.alias or name for name, info in model.model_fields.items())


def _with_known_names(exc: ValidationError, known: tuple[str, ...]) -> ValidationError:
    """`exc` with `known` in the context of each unknown name at its own level (a nested model's errors have
    their own); `exc` itself when it has none, or when one of its errors cannot be rebuilt."""
    errors = exc.errors(include_url=False)
    if not any(error["type"] == UNKNOWN_NAME and len(error["loc"]) == 1 for error in errors):
        return exc
    details: list[InitErrorDetails] = []
    for error in errors:
        if error["type"] == UNKNOWN_NAME and len(error["loc"]) == 1:
            kind: str | PydanticCustomError = PydanticCustomError(
                UNKNOWN_NAME, "Extra inputs are not permitted", {"known": list(known)}
            )
            details.append({"type": kind, "loc": error["loc"], "input": error["input"]})
        else:
            detail: InitErrorDetails = {"type": error["type"], "loc": error["loc"], "input": error["input"]}
            if "ctx" in error:
                detail["ctx"] = error["ctx"]
            details.append(detail)
    try:
        return ValidationError.from_exception_data(exc.title, details)
    except (KeyError, TypeError, ValueError):  # a validator's own error type: keep the errors as they were
        return exc


class ApiRequest(ApiModel, ClosedModel):
    """A request body with camelCase names on the wire, refusing unknown names."""


class ContractRequest(ContractModel, ClosedModel):
    """A request body with the contract's snake_case names, refusing unknown names."""


class QueryOptions(BaseModel):
    """An endpoint's query parameters as one model (`Annotated[Options, Query()]`): camelCase names, and
    only those (a snake_case name is an unknown parameter, refused as any other by fileapi.web.binding)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=False, frozen=True)
