"""A catalogue conversion run over files on disk: an operation's work, and a pipeline stage's.

The declaration (fileapi.catalogue) says everything: the options model validates the options the operation
was accepted with; a conversion with a converter over files runs it on the inputs' paths (page by page, memory
flat in file size); any other runs its converter over bytes with each input as a `FileInput`, read inside the
conversion worker, never in this process. Either way the result is an `Outcome`, whose files are written into
the work folder. No HTTP request or answer is made or read.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import orjson
from pydantic import BaseModel, ValidationError

from fileapi.catalogue.declaration import Conversion, Reads
from fileapi.catalogue.outcome import Outcome, OutFile
from fileapi.convert.json_written import dumps
from fileapi.errors import InvalidInput, TooLarge
from fileapi.isolation.files import FileInput

# Runs a converter in a conversion worker: `run(function, *args, **kwargs)` (the composition root's pool).
RunInWorker = Callable[..., Awaitable[Any]]
# A JSON body uploaded for a conversion of options alone (text/diff of two long texts) is parsed here, in the
# process that runs the operation: JSON parsed in Python takes several times its size.
MAX_JSON_BODY_BYTES = 64 * 1024 * 1024
# Details kept in the operation's record (DynamoDB items hold 400 KB); larger ones are a file of their own.
MAX_DETAILS_BYTES = 64 * 1024


def validated_options(conversion: Conversion, given: Mapping[str, Any]) -> BaseModel | None:
    """The conversion's options model over `given` (wire names, as a query or a JSON body gives them).

    :raises InvalidInput: an option the model refuses, named.
    """
    if conversion.options is None:
        return None
    try:
        return conversion.options.model_validate(dict(given))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or 'options'}: {error['msg']}"
            for error in exc.errors(include_url=False)
        )
        raise InvalidInput(problems) from None


def stored_options(conversion: Conversion, options: Mapping[str, Any] | None, query: str) -> BaseModel | None:
    """The options an operation was accepted with; a record without them (an earlier release's) has its query."""
    return validated_options(conversion, options if options is not None else dict(parse_qsl(query)))


async def run_conversion(
    conversion: Conversion,
    options: BaseModel | None,
    inputs: list[Path],
    folder: Path,
    run: RunInWorker,
    *,
    from_uploads: bool = True,
) -> Outcome:
    """The conversion over `inputs` (in order) with `options`, its files written into `folder`.

    :param from_uploads: the inputs are the client's uploads (any size): a converter over files is used where the
        conversion has one; False: the request's own body, within the synchronous limit.
    :raises ApiError: the conversion's refusal, as the synchronous request would have answered it.
    """
    given = options.model_dump() if options is not None else {}
    reads = conversion.takes.reads
    if conversion.convert_files is not None and from_uploads and inputs:
        outcome: Outcome = await run(conversion.convert_files, [str(path) for path in inputs], str(folder), **given)
        return outcome
    if reads is Reads.JSON:
        if options is None:  # the JSON body was uploaded
            options = validated_options(conversion, _json_object(_read_bounded(inputs[0])))
            given = options.model_dump() if options is not None else {}
        result = await run(conversion.convert, **given)
    elif reads is Reads.FILES:
        result = await run(conversion.convert, [FileInput(str(path)) for path in inputs], **given)
    elif reads is Reads.FORM_FILL and options is None:  # the JSON body {pdf, fields, ...} was uploaded
        body = _json_object(_read_bounded(inputs[0]))
        document = _base64(body.pop("pdf", None))
        options = validated_options(conversion, body)
        given = options.model_dump() if options is not None else {}
        result = await run(conversion.convert, document, **given)
    else:
        result = await run(conversion.convert, FileInput(str(inputs[0])), **given)
    outcome = conversion.outcome(result)
    return written(outcome, folder)


def written(outcome: Outcome, folder: Path) -> Outcome:
    """`outcome` with each file held in memory written into `folder` (its details and headers as they are)."""
    files = []
    for index, made in enumerate(outcome.files):
        if made.path is None:
            path = folder / f"file-{index}"
            path.write_bytes(made.read())
            made = OutFile(made.media_type, made.name, made.field, path=str(path))
        files.append(made)
    return Outcome(tuple(files), outcome.details, outcome.headers)


def reported(conversion: Conversion, outcome: Outcome, folder: Path) -> tuple[tuple[OutFile, ...], dict[str, Any]]:
    """The files and details an operation reports for `outcome`: the JSON answer without its files (a model's
    result in wire names), or a one-file answer's headers; details over MAX_DETAILS_BYTES (the text of a long
    PDF) become a file of their own, details.json, listed last."""
    details: Any = outcome.details
    model = conversion.gives.model
    if details is not None and model is not None and not isinstance(details, dict):
        if conversion.gives.plain:
            details = orjson.loads(dumps(details))
        else:
            details = model.model_validate(details).model_dump(mode="json", by_alias=True, exclude_unset=True)
    if details is None:
        details = {"headers": dict(outcome.headers)} if outcome.headers else {}
    text = orjson.dumps(details)
    if len(text) <= MAX_DETAILS_BYTES:
        return outcome.files, details
    path = folder / "details.json"
    path.write_bytes(text)
    return (*outcome.files, OutFile("application/json", "details.json", path=str(path))), {}


def _read_bounded(path: Path) -> bytes:
    size = path.stat().st_size
    if size > MAX_JSON_BODY_BYTES:
        raise TooLarge(
            f"a JSON body is read in one piece; as an operation it takes at most "
            f"{MAX_JSON_BODY_BYTES // (1024 * 1024)} MiB, and this one is {size:,} bytes"
        )
    return path.read_bytes()


def _json_object(data: bytes) -> dict[str, Any]:
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        raise InvalidInput("the uploaded body is not valid JSON") from None
    if not isinstance(value, dict):
        raise InvalidInput("the uploaded body must be a JSON object")
    return value


def _base64(value: object) -> bytes:
    if not isinstance(value, str) or not value:
        raise InvalidInput("pdf: a base64-encoded PDF is required")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise InvalidInput("pdf is not valid base64") from None
