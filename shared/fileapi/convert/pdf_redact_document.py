"""Removing redacted strings from everything but the pages' drawing: every string object of the document
(the information dictionary, annotations' contents, form values, bookmarks' titles, names, structure
elements' /ActualText and /Alt, JavaScript), JavaScript given as streams, the XMP packets, and embedded files;
and the annotations that lie under an area.

A string holding a redacted text or a pattern's match loses those characters. An annotation whose strings
changed loses its appearance stream (it showed the old text), and a form field's widget is redrawn by the
reader from the new value (/NeedAppearances). An embedded file whose bytes hold a match (as UTF-8, UTF-16 or
Latin-1 text) is emptied: a file of another format cannot be edited safely.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from fileapi.convert import deadline
from fileapi.convert.pdf_redact_areas import Rect
from fileapi.convert.pdf_redact_find import finditer

if TYPE_CHECKING:
    import pikepdf

MAX_ATTACHMENT_BYTES = 8 * 1024 * 1024  # an embedded file larger than this is searched in its first 8 MiB
# Strings that are PDF syntax or binary, not text anyone reads: a form's default appearance ("/Helv 12 Tf 0 g"),
# encryption and signature values, checksums.
_SYNTAX_KEYS = frozenset({"/DA", "/DS", "/ID", "/O", "/U", "/OE", "/UE", "/Perms", "/CheckSum", "/Cert"})


class Scrubber:
    """Removes the literal `strings` and the matches of `patterns` from text."""

    def __init__(self, strings: set[str], patterns: list[Any]) -> None:
        self.strings = sorted((s for s in strings if s), key=len, reverse=True)  # longest first: no half left
        self.patterns = patterns

    def __bool__(self) -> bool:
        return bool(self.strings or self.patterns)

    def scrub(self, text: str) -> str:
        for string in self.strings:
            text = text.replace(string, "")
        for pattern in self.patterns:
            matches = finditer(pattern, text)
            for match in reversed(matches):
                text = text[: match.start()] + text[match.end() :]
        return text

    def holds(self, text: str) -> bool:
        return self.scrub(text) != text


def scrub_document(pdf: pikepdf.Pdf, scrubber: Scrubber) -> set[tuple[int, int]]:
    """Remove the redacted strings from every string object, XMP packet and embedded file (see the module);
    the indirect objects changed."""
    import pikepdf

    changed: set[tuple[int, int]] = set()
    if not scrubber:
        return changed
    for number, obj in enumerate(pdf.objects):
        if number % 1024 == 0:
            deadline.check()
        if isinstance(obj, pikepdf.Stream):
            if _scrub_stream(obj, scrubber):
                changed.add(obj.objgen)
            container: Any = obj.stream_dict
        else:
            container = obj
        if isinstance(container, pikepdf.Dictionary | pikepdf.Array) and _scrub_container(container, scrubber, 0):
            changed.add(obj.objgen)
    info = pdf.trailer.get("/Info")
    if isinstance(info, pikepdf.Dictionary) and not info.is_indirect:
        _scrub_container(info, scrubber, 0)
    _redraw_changed_annotations(pdf, changed)
    return changed


def _scrub_container(container: Any, scrubber: Scrubber, depth: int) -> bool:
    import pikepdf

    if depth > 32:
        return False
    changed = False
    items = list(container.items()) if isinstance(container, pikepdf.Dictionary) else list(enumerate(container))
    for key, value in items:
        if isinstance(key, str) and key in _SYNTAX_KEYS:
            continue
        if isinstance(value, pikepdf.String):
            try:
                text = str(value)
            except UnicodeDecodeError:
                continue
            scrubbed = scrubber.scrub(text)
            if scrubbed != text:
                container[key] = pikepdf.String(scrubbed)
                changed = True
        elif key == "/JS" and isinstance(value, pikepdf.Stream):
            _scrub_script(value, scrubber)  # a changed stream is its own object: the container is unchanged
        elif isinstance(value, pikepdf.Dictionary | pikepdf.Array) and not value.is_indirect:
            changed |= _scrub_container(value, scrubber, depth + 1)
    return changed


def _scrub_script(stream: pikepdf.Stream, scrubber: Scrubber) -> None:
    """A JavaScript action's script given as a stream, not a string: text in PDFDocEncoding, or UTF-16BE after
    its byte order mark (PDF 32000 12.6.4.16), written back as it came."""
    import pikepdf

    try:
        data = stream.read_bytes()
    except pikepdf.PdfError:
        return
    encoding = "utf-16-be" if data.startswith(b"\xfe\xff") else "latin-1"
    text = data[2:].decode(encoding, "replace") if encoding == "utf-16-be" else data.decode(encoding)
    scrubbed = scrubber.scrub(text)
    if scrubbed != text:
        body = scrubbed.encode(encoding, "replace")
        stream.write(b"\xfe\xff" + body if encoding == "utf-16-be" else body)


def _scrub_stream(stream: pikepdf.Stream, scrubber: Scrubber) -> bool:
    import pikepdf

    kind = stream.get("/Type")
    if kind == pikepdf.Name.Metadata or stream.get("/Subtype") == pikepdf.Name.XML:
        try:
            text = stream.read_bytes().decode("utf-8")
        except (pikepdf.PdfError, UnicodeDecodeError):
            return False
        scrubbed = text
        for form in (text, html.unescape(text)):
            if scrubber.holds(form):
                # The packet is XML: the strings are removed as written and as escaped (&amp; for &).
                escaped = Scrubber({html.escape(s, quote=False) for s in scrubber.strings}, [])
                scrubbed = escaped.scrub(scrubber.scrub(scrubbed))
                break
        if scrubbed == text:
            return False
        stream.write(scrubbed.encode("utf-8"))
        return True
    if kind == pikepdf.Name.EmbeddedFile:
        try:
            data = stream.read_bytes()[:MAX_ATTACHMENT_BYTES]
        except pikepdf.PdfError:
            return False
        readings = (data.decode("utf-8", "ignore"), data.decode("utf-16", "ignore"), data.decode("latin-1"))
        if any(scrubber.holds(reading) for reading in readings):
            stream.write(b"")
            if "/Params" in stream:
                del stream["/Params"]
            return True
    return False


def _redraw_changed_annotations(pdf: pikepdf.Pdf, changed: set[tuple[int, int]]) -> None:
    import pikepdf

    for page in pdf.pages:
        for annotation in page.obj.get("/Annots", pikepdf.Array()):
            if not isinstance(annotation, pikepdf.Dictionary):
                continue
            parent = annotation.get("/Parent")
            touched = annotation.objgen in changed or (
                isinstance(parent, pikepdf.Dictionary) and parent.objgen in changed
            )
            if touched:
                _forget_appearance(pdf, annotation)


def _forget_appearance(pdf: pikepdf.Pdf, annotation: pikepdf.Dictionary) -> None:
    import pikepdf

    if "/AP" in annotation:
        del annotation["/AP"]
    if annotation.get("/Subtype") == pikepdf.Name.Widget and "/AcroForm" in pdf.Root:
        pdf.Root.AcroForm.NeedAppearances = True


def clear_annotations_under(pdf: pikepdf.Pdf, page: pikepdf.Page, areas: list[Rect]) -> int:
    """Remove the annotations (links, notes, stamps, ...) whose rectangle meets an area; a form field's widget
    there keeps its place but loses its value and appearance. The number of annotations handled."""
    import pikepdf

    annotations = page.obj.get("/Annots")
    if not isinstance(annotations, pikepdf.Array):
        return 0
    kept = pikepdf.Array()
    handled = 0
    for annotation in annotations:
        rect = annotation.get("/Rect") if isinstance(annotation, pikepdf.Dictionary) else None
        if not isinstance(annotation, pikepdf.Dictionary) or not isinstance(rect, pikepdf.Array) or len(rect) != 4:
            kept.append(annotation)
            continue
        x0, y0, x1, y1 = (float(value) for value in rect)
        box = Rect(min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))
        if not any(area.intersects(box) for area in areas):
            kept.append(annotation)
            continue
        handled += 1
        if annotation.get("/Subtype") == pikepdf.Name.Widget:
            field = annotation if "/V" in annotation or "/Parent" not in annotation else annotation.Parent
            for key in ("/V", "/DV"):
                if key in field:
                    del field[key]
            _forget_appearance(pdf, annotation)
            kept.append(annotation)
    page.obj.Annots = kept
    return handled
