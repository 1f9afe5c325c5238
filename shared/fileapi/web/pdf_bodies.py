"""The two PDF bodies taken as a form or as JSON: merge's documents, fill-form's document and values.

Each route documents one of the two ways (code generators mishandle a body offered two ways) and takes
both; what is wrong with either is 400 invalid_input saying how to send it.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable

import orjson
from fastapi import Request
from starlette.datastructures import UploadFile

from fileapi.catalogue.declaration import IMAGE, Conversion
from fileapi.errors import InvalidInput, TooLarge
from fileapi.models.pdf import FillFormOptions

FILES_HINT = (
    'send the {noun} as form parts (-F files=@a{suffix} -F files=@b{suffix}) or JSON {{"files": [base64 {noun}]}}'
)
KEEP_ACTIVE_CONTENT = "keepActiveContent"
FILL_HINT = 'send -F file=@form.pdf -F \'fields={...}\' or JSON {"pdf": base64 PDF, "fields": {...}}'
# The names each body takes; any other is 400, naming it (as a model's unknown field is: fileapi.models.ClosedModel).
MERGE_NAMES = ("files",)
FILL_JSON_NAMES = ("pdf", "fields", "flatten", KEEP_ACTIVE_CONTENT)
FILL_FORM_NAMES = ("file", "fields", "flatten", KEEP_ACTIVE_CONTENT)


async def read_files(request: Request, *, noun: str = "PDFs", suffix: str = ".pdf", most: int = 500) -> list[bytes]:
    """The files of a conversion that takes several (merge's PDFs, from-images' images): form parts named
    `files`, or JSON {files: [Base64]}; at most `most`.

    :param noun: what the files are, in the messages ("PDFs", "images"); `suffix` their example extension.
    """
    if _is_form(request):
        form = await request.form(max_files=most + 1, max_fields=most + 1)  # one over: counted below, 413
        _only(form.keys(), MERGE_NAMES)
        parts = form.getlist("files")
        if len(parts) > most:
            raise TooLarge(f"files: at most {most:,} {noun} in one request; send them in several")
        documents = [await part.read() for part in parts if isinstance(part, UploadFile)]
        if not documents:
            raise InvalidInput(f"send the {noun} as form parts named 'files'")
        return documents
    hint = FILES_HINT.format(noun=noun, suffix=suffix)
    payload = _json_object(await request.body(), "the body", hint=hint)
    _only(payload, MERGE_NAMES)
    files = payload.get("files")
    if not isinstance(files, list) or not files:
        raise InvalidInput(f"files: a non-empty array of base64-encoded {noun} is required")
    if len(files) > most:
        raise InvalidInput(f"files: at most {most:,} {noun}, not {len(files):,}")
    return [_base64(item, f"files[{position}]", noun) for position, item in enumerate(files, start=1)]


async def read_many(request: Request, conversion: Conversion) -> list[bytes]:
    """The files of a conversion that takes several (merge's PDFs, from-images' images), as its request sends them."""
    noun, suffix = ("images", ".jpg") if conversion.takes.accepts == IMAGE else ("PDFs", ".pdf")
    return await read_files(request, noun=noun, suffix=suffix, most=conversion.takes.most)


async def read_form_fill(request: Request) -> tuple[bytes, FillFormOptions]:
    """The form to fill and its options: JSON {pdf: base64, fields, flatten?, keepActiveContent?}, or form parts
    file, fields (JSON text), flatten and keepActiveContent ('true'/'false')."""
    if _is_form(request):
        form = await request.form(max_files=1, max_fields=10)
        _only(form.keys(), FILL_FORM_NAMES)
        upload = form.get("file")
        if not isinstance(upload, UploadFile):
            raise InvalidInput("file: the PDF is required as a form part named 'file'")
        fields = _json_object(form.get("fields"), "fields")
        flatten, keep = (_flag(form.get(name), name) for name in ("flatten", KEEP_ACTIVE_CONTENT))
        return await upload.read(), FillFormOptions(fields=fields, flatten=flatten, keep_active_content=keep)
    payload = _json_object(await request.body(), "the body", hint=FILL_HINT)
    _only(payload, FILL_JSON_NAMES)
    document = _base64(payload.get("pdf"), "pdf")
    given = payload.get("fields")
    if not isinstance(given, dict):
        raise InvalidInput("fields: an object of field name to value is required")
    flatten, keep = (_boolean(payload.get(name, False), name) for name in ("flatten", KEEP_ACTIVE_CONTENT))
    return document, FillFormOptions(fields=given, flatten=flatten, keep_active_content=keep)


def _only(given: Iterable[str], known: tuple[str, ...]) -> None:
    """:raises InvalidInput: naming each of the `given` names that is not `known` (and the one it may mean)."""
    from fileapi.unknown_names import unknown_name  # its difflib only when a name is unknown

    unknown = [unknown_name(name, known, kind="field") for name in dict.fromkeys(given) if name not in known]
    if unknown:
        raise InvalidInput("; ".join(unknown))


def _boolean(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInput(f"{name} must be true or false")
    return value


def _is_form(request: Request) -> bool:
    return request.headers.get("content-type", "").lower().startswith("multipart/form-data")


def _json_object(raw: object, what: str, *, hint: str = "") -> dict[str, object]:
    then = f"; {hint}" if hint else ""
    if not isinstance(raw, str | bytes) or not raw:
        raise InvalidInput(f"{what}: a JSON object is required{then}")
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise InvalidInput(f"{what} is not valid JSON{then}") from None
    if not isinstance(value, dict):
        raise InvalidInput(f"{what} must be a JSON object{then}")
    return value


def _base64(value: object, what: str, noun: str = "PDFs") -> bytes:
    if not isinstance(value, str) or not value:
        raise InvalidInput(f"{what}: a base64-encoded {noun.removesuffix('s')} is required")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise InvalidInput(f"{what} is not valid base64") from None


def _flag(value: object, name: str) -> bool:
    if value is None:
        return False
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "1", "0", ""):
        return value.strip().lower() in ("true", "1")
    raise InvalidInput(f"{name} must be 'true' or 'false'")
