"""Metadata write: the document information dictionary's six text fields, with the XMP packet kept in step.

A reader may show either copy (pdfinfo and pdf/info read the information dictionary; exiftool reads both and
Acrobat prefers XMP), so each field given is written to both, and a field cleared is removed from both.
A document without an XMP packet keeps none: its information dictionary is then the only copy.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from fileapi.convert.pdf_errors import reading
from fileapi.convert.pdf_io import open_pdf, save_pdf, write_pdf
from fileapi.convert.pdf_options import MAX_FIELD_CHARS
from fileapi.errors import InvalidInput

if TYPE_CHECKING:
    import pikepdf

# Information dictionary key -> XMP property (the mapping of ISO 16684-1 and the PDF 2.0 specification, 14.3.2).
FIELDS = {
    "title": ("/Title", "dc:title"),
    "author": ("/Author", "dc:creator"),
    "subject": ("/Subject", "dc:description"),
    "keywords": ("/Keywords", "pdf:Keywords"),
    "creator": ("/Creator", "xmp:CreatorTool"),
    "producer": ("/Producer", "pdf:Producer"),
}
# Characters XML 1.0 cannot carry (the XMP packet is XML): C0 controls other than tab, line feed and return.
_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def set_pdf_metadata(
    data: bytes,
    *,
    title: str | None = None,
    author: str | None = None,
    subject: str | None = None,
    keywords: str | None = None,
    creator: str | None = None,
    producer: str | None = None,
) -> bytes:
    """The document with each field given set in its information dictionary and its XMP packet; a field given
    as '' is removed from both; a field not given (None) is left as it is.

    :param title: 0..4,000 characters, any Unicode XML carries (no C0 control but tab, LF and CR), written as
        UTF-16 when not PDFDocEncoding; likewise author, subject, keywords, creator (the application that made
        the original) and producer (the application that made the PDF).
    :raises InvalidInput: a value over 4,000 characters or holding a character XML cannot carry, or not a readable
        PDF.
    :raises TooLarge: more than 2,000 pages.
    """
    values = _checked(
        title=title, author=author, subject=subject, keywords=keywords, creator=creator, producer=producer
    )
    pdf = open_pdf(data)
    with reading():
        _write(pdf, values)
    return save_pdf(pdf)


def set_pdf_metadata_file(source: str, out: str, **fields: str | None) -> None:
    """The file `source` with its metadata set as `set_pdf_metadata` does (fields by keyword) into `out`."""
    values = _checked(**fields)
    pdf = open_pdf(Path(source))
    with reading():
        _write(pdf, values)
    write_pdf(pdf, Path(out))


def _checked(**fields: str | None) -> dict[str, str]:
    unknown = set(fields) - set(FIELDS)
    if unknown:
        raise InvalidInput(f"unknown metadata fields: {', '.join(sorted(unknown))}")
    values = {name: value for name, value in fields.items() if value is not None}
    for name, value in values.items():
        if len(value) > MAX_FIELD_CHARS:
            raise InvalidInput(f"{name} must be at most {MAX_FIELD_CHARS:,} characters, not {len(value):,}")
        if _NOT_XML.search(value):
            raise InvalidInput(f"{name} holds a control character; metadata is text")
    return values


def _write(pdf: pikepdf.Pdf, values: dict[str, str]) -> None:
    for name, value in values.items():
        key = FIELDS[name][0]
        if value:
            pdf.docinfo[key] = value
        elif key in pdf.docinfo:
            del pdf.docinfo[key]
    if "/Metadata" not in pdf.Root:
        return
    with pdf.open_metadata(set_pikepdf_as_editor=False, update_docinfo=False) as xmp:
        for name, value in values.items():
            prop = FIELDS[name][1]
            if not value:
                if prop in xmp:
                    del xmp[prop]
                if name == "keywords" and "dc:subject" in xmp:
                    del xmp["dc:subject"]
            elif name == "author":
                xmp[prop] = [value]
            else:
                xmp[prop] = value
                if name == "keywords" and "dc:subject" in xmp:  # the keywords' other XMP home, a bag of words
                    xmp["dc:subject"] = {word.strip() for word in re.split(r"[,;]", value) if word.strip()}
