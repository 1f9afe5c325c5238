"""What a conversion is, declared once: what it takes, its options, its converters, what it gives, its docs.

A `Conversion` is a unit of work before it is an HTTP endpoint. From its declaration come the synchronous
route (fileapi.web.catalogue_routes), the operation and the pipeline stage (fileapi.operations.conversions), the
OpenAPI operation (and so the SDKs and the MCP tools), the SAM event, the template's route and the docs row.
This module imports no web framework and no converter library: a declaration names its converters, and they
import their libraries when they run (in a conversion worker).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from pydantic import BaseModel

from fileapi.catalogue.outcome import Outcome, one_file


class Reads(Enum):
    """How a conversion's input arrives in a synchronous request, and what its converter is called with."""

    FILE = "file"  # the body's bytes (raw, or a form's one file): converter(data, **options)
    TEXT = "text"  # the body's text (a JSON string counts as its text): converter(data, **options)
    FILES = "files"  # several files (form parts named `files`, or JSON {files: [Base64]}): converter(list, **options)
    JSON = "json"  # no file: the options are the JSON body: converter(**options)
    FORM_FILL = "form-fill"  # one PDF and its options in one JSON body or form: converter(data, **options)


# What a conversion takes and gives, by kind of file (a pipeline stage takes what the one before gives).
PDF = "application/pdf"
IMAGE = "image/*"
SVG = "image/svg+xml"
ANY = "*/*"


@dataclass(frozen=True)
class Takes:
    """What a conversion takes.

    :param reads: how the input arrives (`Reads`).
    :param accepts: the kind of file it takes (PDF, IMAGE, SVG, ANY, or a text media type): how a pipeline
        checks that a stage can take what the one before gives.
    :param most: how many files it takes at once (merge: many; every other: one).
    :param doc: the request body's description in the document.
    :param text_types: for text, the text media types the document shows (with `example`).
    :param example: an example body (text), shown in the document.
    :param model: the body's model in the document, for FILES and FORM_FILL (read by the web layer itself).
    :param schema: for a JSON document read as it is (`accepts` application/json), its schema in the document
        (default: any JSON value).
    """

    reads: Reads
    accepts: str = ANY
    most: int = 1
    doc: str = ""
    text_types: tuple[str, ...] = ()
    example: Any = None
    model: type[BaseModel] | None = None
    schema: Mapping[str, Any] | None = None

    @property
    def takes_file(self) -> bool:
        """Whether the conversion takes a file (every kind but options alone)."""
        return self.reads is not Reads.JSON


class Shape(Enum):
    """What a conversion gives."""

    FILE = "file"  # one file, the answer's body (a PDF, an image, bytes)
    TEXT = "text"  # text, the answer's body (Base64, CSV, HTML, JSON text; a model may document JSON text)
    JSON = "json"  # a JSON object described by a model, without files
    JSON_FILES = "json-files"  # a JSON object whose Base64 fields are files (split's PDFs, rendered pages)


@dataclass(frozen=True)
class Gives:
    """What a conversion gives.

    :param shape: `Shape`.
    :param media_types: the media types of a FILE or TEXT answer (the first is the default).
    :param model: the answer's model for JSON and JSON_FILES; for TEXT, the model that documents JSON text.
    :param doc: the success answer's description in the document.
    :param headers: headers of the answer beyond the metering ones (their OpenAPI definitions).
    :param example: a TEXT answer's example, and `schema` its schema (default: a string).
    :param kind: for JSON_FILES, the kind of its files (PDF, IMAGE): what a next pipeline stage gets.
    :param plain_alphabet: a TEXT answer in printable ASCII without `"` and `\\` (Base64, percent-encoding),
        whose size in the payload is its length (fileapi.web.limits.PlainText).
    :param plain: a JSON answer the converter gives as plain data in the answer's names (dataclasses, lists,
        `JsonArray`s of JSON it wrote itself), written as it is (fileapi.convert.json_written.dumps) without
        being validated against `model`, which documents it (a diff of 80,000 lines: 0.2 s to validate).
    """

    shape: Shape
    media_types: tuple[str, ...] = ()
    model: type[BaseModel] | None = None
    doc: str = ""
    headers: Mapping[str, Any] = field(default_factory=dict)
    example: Any = None
    schema: Mapping[str, Any] | None = None
    plain_alphabet: bool = False
    kind: str | None = None
    plain: bool = False

    @property
    def gives_files(self) -> bool:
        """Whether the conversion gives files a next stage can take (not JSON alone)."""
        return self.shape is not Shape.JSON


def described(model: type[BaseModel]) -> str:
    """A conversion's description from its options model's docstring (one paragraph)."""
    return " ".join(line.strip() for line in (model.__doc__ or "").splitlines() if line.strip())


def gives_file(media_types: tuple[str, ...], doc: str, *, headers: Mapping[str, Any] | None = None) -> Gives:
    """One file in one of `media_types`."""
    return Gives(Shape.FILE, media_types=media_types, doc=doc, headers=headers or {})


def gives_text(
    media_type: str,
    doc: str,
    example: Any,
    *,
    schema: Mapping[str, Any] | None = None,
    plain_alphabet: bool = False,
) -> Gives:
    """Text of `media_type` (JSON text: `schema={}`, any value)."""
    return Gives(
        Shape.TEXT, media_types=(media_type,), doc=doc, example=example, schema=schema, plain_alphabet=plain_alphabet
    )


def gives_json_text(model: type[BaseModel], doc: str) -> Gives:
    """JSON text the converter writes itself, documented by `model`."""
    return Gives(Shape.TEXT, media_types=("application/json",), model=model, doc=doc)


def gives_json(model: type[BaseModel], doc: str = "", *, plain: bool = False) -> Gives:
    """A JSON object of `model` (default description: the model's docstring); `plain`: see `Gives`."""
    return Gives(Shape.JSON, model=model, doc=doc or (model.__doc__ or model.__name__).strip(), plain=plain)


def gives_json_files(model: type[BaseModel], kind: str, doc: str = "") -> Gives:
    """A JSON object of `model` whose Base64 fields are files of `kind` (the declaration's `unpack` finds them)."""
    return Gives(Shape.JSON_FILES, model=model, doc=doc or (model.__doc__ or model.__name__).strip(), kind=kind)


@dataclass(frozen=True)
class Conversion:
    """One conversion of the API.

    :param path: its route, e.g. `/v1/pdf/rotate`; its name is the path without `/v1/` (`pdf/rotate`).
    :param family: the Lambda function that serves it (`functions/<family>`).
    :param summary: one line, the operation's summary.
    :param description: what it does, its options and limits (the operation's description, the MCP tool's).
    :param tags: the document's tags.
    :param takes: what it takes (`Takes`).
    :param options: its options: a `QueryOptions` model (query parameters), or for `Reads.JSON` the JSON body's
        model; None: it takes none. Each field is a keyword argument of the converter.
    :param convert: the converter over bytes (a module-level function, so that a worker can run it).
    :param gives: what it gives (`Gives`).
    :param unpack: the converter's result as an `Outcome` (files and details); None: by `gives.shape`
        (fileapi.catalogue.outcome.outcome_of).
    :param convert_files: the converter over files, for large inputs: `(inputs: list[str], folder: str,
        **options) -> Outcome` with the files written into `folder`; None: the converter over bytes reads the
        input inside the worker.
    :param isolated: whether it runs in a conversion worker (native code or super-linear work on the caller's
        bytes), else in the request's process (linear work on a bounded body).
    :param example: example options (wire names) that make a valid request with the family's sample input:
        used by the docs, the SAM events, the fuzz and corpus tools.
    :param function_name: the operation id's stem in generated clients (default: from the path).
    """

    path: str
    family: str
    summary: str
    description: str
    takes: Takes
    gives: Gives
    convert: Callable[..., Any]
    options: type[BaseModel] | None = None
    unpack: Callable[[Any], Outcome] | None = None
    convert_files: Callable[..., Outcome] | None = None
    isolated: bool = True
    tags: tuple[str, ...] = ()
    example: Mapping[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The conversion's name: its path without `/v1/` (`pdf/rotate`), as a pipeline stage's `run` names it."""
        return self.path.removeprefix("/v1/")

    def outcome(self, result: Any) -> Outcome:
        """The converter's `result` as an outcome: by the declaration's `unpack`, else by what it gives:

        - a file: bytes (in the first media type given), a (bytes, media type) pair, or an object with `data` and
          `media_type` (and `headers()`, the answer's headers);
        - text: bytes or str, in the media type given;
        - JSON: the result is the details (the answer's model reads it).

        :raises TypeError: a result of another kind (a declaration that names the wrong converter).
        """
        if self.unpack is not None:
            return self.unpack(result)
        gives = self.gives
        if gives.shape is Shape.JSON:
            return Outcome(details=result)
        if gives.shape is Shape.TEXT:
            return one_file(text_bytes(result), gives.media_types[0])
        if gives.shape is Shape.FILE:
            if isinstance(result, bytes | bytearray | memoryview):
                media_type = gives.media_types[0] if gives.media_types else "application/octet-stream"
                return one_file(bytes(result), media_type)
            if isinstance(result, tuple):
                data, media_type = result
                return one_file(data, media_type)
            return one_file(result.data, result.media_type, result.headers() if hasattr(result, "headers") else {})
        raise TypeError(f"{self.path}: a result of {gives.shape} needs the declaration's unpack")

    @property
    def most_inputs(self) -> int:
        """How many files it takes as an operation or a stage (0: none, options alone)."""
        return self.takes.most if self.takes.takes_file else 0


def text_bytes(result: bytes | str) -> bytes:
    """A text converter's result as the answer's bytes (a str in UTF-8)."""
    return result.encode("utf-8") if isinstance(result, str) else result
