"""PDF forms with pypdf: fill fields (with appearance streams) and flatten.

Flattening bakes each widget's appearance into the page content (pypdf), then removes the widget
annotations and the /AcroForm (pypdf leaves them, which keeps the form editable). A form pypdf cannot read
though qpdf opens the document (a radio group whose kids are fields of their own without an appearance, as
qpdf's button-set.pdf) is flattened by qpdf instead: its appearances generated where the form asks for them,
then its widgets flattened; such a form cannot be filled (422).
"""

from __future__ import annotations

import io
from typing import Any

from fileapi.convert import fallbacks
from fileapi.convert.pdf_active import without_active_content
from fileapi.convert.pdf_errors import reading
from fileapi.errors import InvalidInput, Unprocessable

_RADIO = 1 << 15
_PUSHBUTTON = 1 << 16
MAX_FIELDS = 1_000


def _writer(data: bytes) -> Any:
    """pypdf's writer over the document; when pypdf cannot read it, over the copy qpdf repaired."""
    from fileapi.convert.pdf import forms_are_drawable, repaired_copy
    from fileapi.convert.pdf_io import open_pdf

    # The same checks and errors as every PDF endpoint (header, password, page bound), and a form
    # field tree that pypdf can walk in bounded time.
    with reading():
        walkable = forms_are_drawable(open_pdf(data))
    if not walkable:
        raise InvalidInput("the PDF's form names the same field more than once in its field tree, or has too many")
    try:
        return _pypdf_writer(data)
    except (Exception, RecursionError) as exc:  # pypdf raises many types on damaged input
        failure = exc
    with reading():
        repaired = repaired_copy(data)
    try:
        writer = _pypdf_writer(repaired)
    except (Exception, RecursionError):
        raise _Unread(failure) from None  # qpdf opened it: the form is one pypdf does not read
    fallbacks.record("pypdf -> qpdf repair")
    return writer


class _Unread(Exception):
    """pypdf could not read the form of a document qpdf opens (and repairs): `failure` says why."""

    def __init__(self, failure: BaseException) -> None:
        super().__init__(str(failure))
        self.failure = failure


def _pypdf_writer(data: bytes) -> Any:
    from pypdf import PdfReader, PdfWriter

    reader = PdfReader(io.BytesIO(data))
    if reader.is_encrypted:
        reader.decrypt("")
    writer = PdfWriter(clone_from=reader)
    writer.get_fields()  # reads the whole form: a damaged one fails here, not later
    return writer


def _known_fields(fields: dict[str, Any], shown: int = 20) -> str:
    """The names a fill can use, as the message of a name that is not one of them says them."""
    named = sorted(name for name in fields if name.strip())
    if not named:
        return "the form's fields have no names, so none can be filled by name"
    more = f" (and {len(named) - shown} more)" if len(named) > shown else ""
    return f"the form's fields are: {', '.join(repr(name) for name in named[:shown])}{more}"


def _field_values(fields: dict[str, Any], wanted: dict[str, Any]) -> dict[str, Any]:
    """pypdf values for `wanted` (name -> value), checked against the form's fields."""
    values: dict[str, Any] = {}
    for name, value in wanted.items():
        field = fields.get(name)
        if field is None:
            raise InvalidInput(f"no field named {name!r}; {_known_fields(fields)}")
        kind = field.get("/FT")
        flags = int(field.get("/Ff", 0))
        if kind == "/Btn":
            values[name] = _button_value(name, field, flags, value)
        elif kind == "/Ch":
            values[name] = _choice_value(name, field, value)
        else:
            if isinstance(value, bool) or not isinstance(value, str | int | float):
                raise InvalidInput(f"field {name!r} takes text, not {type(value).__name__}")
            values[name] = str(value)
    return values


def _button_value(name: str, field: Any, flags: int, value: Any) -> str:
    if flags & _PUSHBUTTON:
        raise InvalidInput(f"field {name!r} is a push button and holds no value")
    states = [str(state) for state in field.get("/_States_", []) if str(state).startswith("/")]
    on_states = [state for state in states if state != "/Off"]
    if isinstance(value, bool) and not flags & _RADIO:
        return (on_states[0] if on_states else "/Yes") if value else "/Off"
    wanted = "/" + str(value).lstrip("/") if value is not None else "/Off"
    if wanted in states:
        return wanted
    choices = ", ".join(state.lstrip("/") for state in states)
    raise InvalidInput(f"field {name!r} takes {'true/false or ' if not flags & _RADIO else ''}one of: {choices}")


def _choice_value(name: str, field: Any, value: Any) -> str | list[str]:
    options = []
    for option in field.get("/Opt", []) or []:
        options.append(str(option[0]) if isinstance(option, list | tuple) else str(option))
    values = value if isinstance(value, list) else [value]
    if not all(isinstance(item, str) for item in values):
        raise InvalidInput(f"field {name!r} takes text or a list of texts")
    if options and any(item not in options for item in values):
        raise InvalidInput(f"field {name!r} takes one of: {', '.join(options)}")
    return values if isinstance(value, list) else str(value)


def fill_form(
    data: bytes, *, fields: dict[str, Any], flatten: bool = False, keep_active_content: bool = False
) -> bytes:
    """Set form fields: text fields take text; check boxes true/false or their export value; radio
    groups an export value; choice fields one of their options (a list for multi-select).
    Appearance streams are generated so every viewer shows the values.

    :param keep_active_content: keep JavaScript (field scripts too), automatic and launch actions and
        embedded files (default: removed, see fileapi.convert.pdf_active).

    :raises InvalidInput: no form, a field that does not exist (named), or a value it cannot take.
    """
    if not isinstance(fields, dict) or not fields:
        raise InvalidInput("fields must be a non-empty object of field name to value")
    if len(fields) > MAX_FIELDS:
        raise InvalidInput(f"at most {MAX_FIELDS} fields")
    try:
        writer = _writer(data)
    except _Unread:
        raise Unprocessable(
            "the PDF's form cannot be filled: the form library cannot read its fields (a radio button or check "
            "box without an appearance, for one); /v1/pdf/flatten still bakes the values the form holds"
        ) from None
    with reading():
        form_fields = writer.get_fields() or {}
    if not form_fields:
        raise InvalidInput("the PDF has no form fields")
    values = _field_values(form_fields, fields)
    if flatten:  # every field's widget goes: bake the values the form already holds too
        values = {**_current_values(form_fields), **values}
    with reading():
        _set_values(writer, form_fields, values, flatten=flatten)
        if flatten:
            _remove_form(writer)
        else:
            writer.set_need_appearances_writer(True)
        written = _written(writer)
    return written if keep_active_content else without_active_content(written)


def flatten_form(data: bytes, *, keep_active_content: bool = False) -> bytes:
    """Bake the values a form holds into the pages and remove the form; a PDF without form fields
    is returned unchanged (but for its active content).

    :param keep_active_content: keep JavaScript, automatic and launch actions and embedded files
        (default: removed, see fileapi.convert.pdf_active).
    """
    try:
        writer = _writer(data)
    except _Unread:
        fallbacks.record("pypdf -> qpdf flatten")
        flat = _qpdf_flattened(data)
        return flat if keep_active_content else without_active_content(flat)
    with reading():
        form_fields = writer.get_fields() or {}
        if form_fields:
            _set_values(writer, form_fields, _current_values(form_fields), flatten=True)
            _remove_form(writer)
    if keep_active_content:
        return _written(writer) if form_fields else data
    return without_active_content(_written(writer) if form_fields else data)


def _current_values(form_fields: dict[str, Any]) -> dict[str, Any]:
    """The values the fields hold now, as pypdf takes them."""
    values: dict[str, Any] = {}
    for name, field in form_fields.items():
        value = field.get("/V")
        if value is not None:
            values[name] = [str(item) for item in value] if isinstance(value, list) else str(value)
    return values


def _set_values(writer: Any, form_fields: dict[str, Any], values: dict[str, Any], *, flatten: bool) -> None:
    """pypdf's update of the fields (their appearances drawn), with list boxes whose options are [export,
    display] pairs (PDF 32000 12.7.4.4) drawn from their display texts: pypdf 7.1 draws a list box by joining
    its /Opt as text, and a pair there was a TypeError. Their /Opt pairs and export values are put back after."""
    paired: list[tuple[Any, Any, Any]] = []  # (field object, its /Opt, the export value(s))
    shown = dict(values)
    for name, value in values.items():
        field = form_fields.get(name)
        target = field.indirect_reference.get_object() if field is not None and field.indirect_reference else None
        options = target.get("/Opt") if target is not None else None
        if not options or not any(isinstance(option, list) and len(option) == 2 for option in options):
            continue
        display = {
            str(option[0]): str(option[1]) for option in options if isinstance(option, list) and len(option) == 2
        }
        paired.append((target, options, value))
        shown[name] = (
            [display.get(item, item) for item in value] if isinstance(value, list) else display.get(value, value)
        )
    from pypdf.generic import ArrayObject, NameObject, TextStringObject

    for target, options, _ in paired:
        target[NameObject("/Opt")] = ArrayObject(
            TextStringObject(str(option[1] if isinstance(option, list) and len(option) == 2 else option))
            for option in options
        )
    try:
        writer.update_page_form_field_values(None, shown, auto_regenerate=False, flatten=flatten)
    finally:
        for target, options, value in paired:
            target[NameObject("/Opt")] = options
            target[NameObject("/V")] = (
                ArrayObject(TextStringObject(item) for item in value)
                if isinstance(value, list)
                else TextStringObject(value)
            )


def _qpdf_flattened(data: bytes) -> bytes:
    """The document with its form's widgets flattened by qpdf (their appearances generated first where the form
    asks for them, /NeedAppearances), the /AcroForm removed and other annotations kept."""
    import pikepdf

    from fileapi.convert.pdf_io import open_pdf, save_pdf

    with reading():
        pdf = open_pdf(data)
        form = pdf.Root.get("/AcroForm")
        if not isinstance(form, pikepdf.Dictionary):
            return data
        pdf.generate_appearance_streams()
        others: list[tuple[Any, list[Any]]] = []  # each page's annotations other than widgets, set aside
        for page in pdf.pages:
            annotations = page.obj.get("/Annots")
            if not isinstance(annotations, pikepdf.Array):
                continue
            widgets: list[Any] = []
            kept: list[Any] = []
            for annotation in annotations:
                is_widget = isinstance(annotation, pikepdf.Dictionary) and annotation.get("/Subtype") == "/Widget"
                (widgets if is_widget else kept).append(annotation)
            page.obj.Annots = pikepdf.Array(widgets)
            others.append((page, kept))
        pdf.flatten_annotations(mode="all")
        for page, kept in others:
            left = page.obj.get("/Annots")  # widgets qpdf could not flatten (no appearance): removed with the form
            if kept:
                page.obj.Annots = pikepdf.Array(kept)
            elif left is not None:
                del page.obj["/Annots"]
        if "/AcroForm" in pdf.Root:  # qpdf removes it when it flattened every field
            del pdf.Root["/AcroForm"]
        return save_pdf(pdf)


def _remove_form(writer: Any) -> None:
    from pypdf.generic import ArrayObject, NameObject

    for page in writer.pages:
        annotations = page.get("/Annots")
        if annotations is None:
            continue
        kept = ArrayObject(
            annotation
            for annotation in annotations.get_object()
            if annotation.get_object().get("/Subtype") != "/Widget"
        )
        if kept:
            page[NameObject("/Annots")] = kept
        else:
            del page["/Annots"]
    if "/AcroForm" in writer.root_object:
        del writer.root_object["/AcroForm"]


def _written(writer: Any) -> bytes:
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
