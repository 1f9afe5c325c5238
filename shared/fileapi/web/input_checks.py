"""What a route refuses from an input's first bytes, so that an operation is refused before it is accepted (202)
exactly as the synchronous request would be: each check is the converter's own (same code, same message).

Routes are told by path until the catalogue declares what each conversion takes: the PDF routes that read one
document (not merge or fill-form, which read forms or JSON) take a PDF; the image routes and the two code readers
take an image (strip-metadata only JPEG, PNG or WebP); file/detect takes any bytes but none. The other routes take
any bytes, or what only their conversion can tell (JSON, CSV, SVG, Markdown): nothing is checked ahead for them
(their JSON bodies are validated by their binder).
"""

from __future__ import annotations

from collections.abc import Callable

from fileapi.convert.detect import SNIFF_BYTES
from fileapi.operations.service import StartCheck

_PDF_FORMS = frozenset({"/v1/pdf/merge", "/v1/pdf/fill-form"})
_IMAGE_READERS = frozenset({"/v1/qr/read", "/v1/barcode/read"})


def start_check(route: str) -> StartCheck | None:
    """The check of `route`'s input from its first bytes (SNIFF_BYTES, 4,096), or None where there is none."""
    check = _check_of(route)
    return None if check is None else StartCheck(SNIFF_BYTES, check)


def _check_of(route: str) -> Callable[[bytes], object] | None:
    if route.startswith("/v1/pdf/") and route not in _PDF_FORMS:
        from fileapi.convert.pdf_io import check_header

        return check_header
    if route == "/v1/image/strip-metadata":
        from fileapi.convert.image_metadata import strippable_type

        return strippable_type
    if route.startswith("/v1/image/") or route in _IMAGE_READERS:
        from fileapi.convert.image_decode import check_image_start

        return check_image_start
    if route == "/v1/file/detect":
        from fileapi.convert.detect import detect_type

        return detect_type
    return None
