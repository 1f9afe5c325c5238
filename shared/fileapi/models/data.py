"""Data conversions: the options of each, and the JSON rows CSV becomes."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field, RootModel

from fileapi.convert.data_options import MAX_INDENT
from fileapi.models import QueryOptions


class DataCsvToJsonResult(RootModel[list[dict[str, str] | list[str]]]):
    """The rows: objects of strings keyed by the header row, or arrays of strings with header=false."""

    model_config = ConfigDict(json_schema_extra={"examples": [[{"a": "1", "b": "2"}]]})


# Each options model's fields are its converter's keyword arguments (tests/unit/models/test_options_models.py).
Delimiter = Annotated[
    str | None,
    Field(
        min_length=1, max_length=1, description="Field separator, one character (e.g. `,` `;` `|` or a tab as `%09`)."
    ),
]


class Base64EncodeOptions(QueryOptions):
    url_safe: bool = Field(default=False, description="Use the URL-safe alphabet (`-` `_`).")
    padding: bool = Field(default=True, description="Keep the trailing `=` padding.")


class CsvToJsonOptions(QueryOptions):
    delimiter: Delimiter = None
    header: bool = Field(default=True, description="The first row holds the field names.")


class JsonToCsvOptions(QueryOptions):
    delimiter: Delimiter = None
    escape_formulas: bool = Field(default=True, description="Neutralise spreadsheet formulas in cells.")


class UrlEncodeOptions(QueryOptions):
    form: bool = Field(default=False, description="Encode a space as `+`.")


class UrlDecodeOptions(QueryOptions):
    form: bool = Field(default=False, description="Decode `+` as a space.")


class JsonFormatOptions(QueryOptions):
    indent: int = Field(default=2, ge=1, le=MAX_INDENT, description="Spaces per nesting level.")
