"""What a conversion refuses from an input's first bytes, so that an operation is refused before it is accepted
(202) exactly as the synchronous request would be: each check is the converter's own (same code, same message).

The kind of file a conversion declares it takes (`fileapi.catalogue.Takes.accepts`) chooses the check, for a
conversion that reads one file as the body: a PDF must start as one; an image must not be something else (text, a
document, an archive) and not empty; strip-metadata takes only JPEG, PNG or WebP; file/detect takes any bytes but
none. Other inputs (text, JSON, SVG, Markdown, several files) only their conversion can judge: nothing is checked
ahead for them (their options and JSON bodies are validated by their binder).
"""

from __future__ import annotations

from collections.abc import Callable

from fileapi.catalogue.declaration import IMAGE, PDF, Conversion, Reads
from fileapi.convert.detect import SNIFF_BYTES
from fileapi.operations.service import StartCheck

STRIP_METADATA = "/v1/image/strip-metadata"
DETECT = "/v1/file/detect"


def start_check(conversion: Conversion) -> StartCheck | None:
    """The check of `conversion`'s input from its first bytes (SNIFF_BYTES, 4,096), or None where there is none."""
    check = _check_of(conversion)
    return None if check is None else StartCheck(SNIFF_BYTES, check)


def _check_of(conversion: Conversion) -> Callable[[bytes], object] | None:
    takes = conversion.takes
    if takes.reads is not Reads.FILE:
        return None
    if takes.accepts == PDF:
        from fileapi.convert.pdf_io import check_header

        return check_header
    if conversion.path == STRIP_METADATA:
        from fileapi.convert.image_metadata import strippable_type

        return strippable_type
    if takes.accepts == IMAGE:
        from fileapi.convert.image_decode import check_image_start

        return check_image_start
    if conversion.path == DETECT:
        from fileapi.convert.detect import detect_type

        return detect_type
    return None
