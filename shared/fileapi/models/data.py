"""Data conversions: the JSON rows CSV becomes."""

from __future__ import annotations

from pydantic import ConfigDict, RootModel


class DataCsvToJsonResult(RootModel[list[dict[str, str] | list[str]]]):
    """The rows: objects of strings keyed by the header row, or arrays of strings with header=false."""

    model_config = ConfigDict(json_schema_extra={"examples": [[{"a": "1", "b": "2"}]]})
