"""Hostile inputs of the document endpoints (unlock, metadata, pages, redact, from-images), both sides of every
limit, as data in the shape of tests/bombs.py, with the paths the endpoints will have.

They join tests/bombs.py's BOMBS once the routes are declared. Two differences from bombs.Bomb: a parameter may
repeat (redact's `text`, `pattern` and `area`: a list), and an entry may carry `files` (from-images' multipart
parts, in order), from which `build` makes the multipart body. Until the routes exist,
tests/unit/convert/test_pdf_bombs_data.py sends each through its options model and converter.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from fileapi.convert.pdf_edit import protect_pdf
from fileapi.convert.pdf_from_images import MAX_IMAGES
from fileapi.convert.pdf_options import MAX_AREAS, MAX_FIELD_CHARS, MAX_ORDER_CHARS
from fileapi.convert.pdf_pages import MAX_RESULT_PAGES
from fileapi.convert.pdf_redact_find import MAX_FOUND_AREAS
from tests.bombs import INVALID, OK, TOO_LARGE
from tests.hostile_files import flate_bomb_pdf, jpeg_claiming_65535, pdf_of_pages, png_claiming, png_of_zeros
from tests.pdf_fixtures import make_pdf

WRONG_PASSWORD: tuple[int, str | None] = (400, "wrong_password")
BOUNDARY = "pdfbombs"


@dataclass(frozen=True)
class DocumentBomb:
    name: str
    path: str
    build: Callable[[], bytes]
    expected: tuple[int, str | None]  # status and error code (None: a 200)
    why: str = ""
    content_type: str = "application/pdf"
    params: dict[str, str | list[str]] = field(default_factory=dict)
    files: Callable[[], list[bytes]] | None = None  # multipart `files` parts; `build` writes them as the body


def multipart(parts: list[bytes], name: str = "files") -> bytes:
    """`parts` as a multipart/form-data body of repeated `name` fields (boundary BOUNDARY)."""
    head = f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"; filename="f"\r\n\r\n'.encode()
    return b"".join(head + part + b"\r\n" for part in parts) + f"--{BOUNDARY}--\r\n".encode()


def _eight() -> bytes:
    return make_pdf([f"page {n}" for n in range(1, 9)])


PAGES = [
    DocumentBomb("pages, an order of a million entries", "/v1/pdf/pages", _eight, INVALID,
                 "2 MB of page list, refused by the parameter's length before the document is read",
                 params={"order": ",".join(["1"] * 1_000_000)}),
    DocumentBomb(f"pages, {MAX_RESULT_PAGES} pages from 8 (at the limit)", "/v1/pdf/pages", _eight, OK,
                 "each page a copy of a page dictionary",
                 params={"order": ",".join(["1-8"] * (MAX_RESULT_PAGES // 8))}),
    DocumentBomb(f"pages, {MAX_RESULT_PAGES + 1} pages from 8", "/v1/pdf/pages", _eight, TOO_LARGE,
                 "one over, counted before any page is copied",
                 params={"order": ",".join(["1-8"] * (MAX_RESULT_PAGES // 8)) + ",1"}),
    DocumentBomb("pages, ranges of a 2000-page document 2 times", "/v1/pdf/pages", lambda: pdf_of_pages(2000),
                 OK, "4000 pages", params={"order": "1-2000,2000-1"}),
    DocumentBomb("pages, ranges of a 2000-page document 3 times", "/v1/pdf/pages", lambda: pdf_of_pages(2000),
                 TOO_LARGE, "6000 pages", params={"order": "1-2000,2000-1,1-2000"}),
    DocumentBomb(f"pages, an order of {MAX_ORDER_CHARS} characters (at the limit)", "/v1/pdf/pages", _eight, OK,
                 "the longest page list the parameter takes", params={"order": "1".ljust(MAX_ORDER_CHARS)}),
    DocumentBomb(f"pages, an order of {MAX_ORDER_CHARS + 1} characters", "/v1/pdf/pages", _eight, INVALID,
                 "one over", params={"order": "1".ljust(MAX_ORDER_CHARS + 1)}),
    DocumentBomb("pages of a 2 GiB flate bomb", "/v1/pdf/pages", lambda: flate_bomb_pdf(2048), OK,
                 "the content stream is copied, never inflated", params={"order": "1,1,blank"}),
]  # fmt: skip
UNLOCK_AND_METADATA = [
    DocumentBomb("unlock with a 129-character password", "/v1/pdf/unlock", _eight, INVALID,
                 "longer than any PDF password", params={"password": "p" * 129}),
    DocumentBomb("unlock with a wrong password", "/v1/pdf/unlock",
                 lambda: protect_pdf(_eight(), user_password="right"), WRONG_PASSWORD, "its own code",
                 params={"password": "wrong"}),
    DocumentBomb("unlock of a 2 GiB flate bomb", "/v1/pdf/unlock", lambda: flate_bomb_pdf(2048), OK,
                 "not encrypted: the same bytes back, nothing inflated", params={"password": "x"}),
    DocumentBomb(f"metadata title of {MAX_FIELD_CHARS} characters (at the limit)", "/v1/pdf/metadata", _eight, OK,
                 "one field at its bound", params={"title": "t" * MAX_FIELD_CHARS}),
    DocumentBomb(f"metadata title of {MAX_FIELD_CHARS + 1} characters", "/v1/pdf/metadata", _eight, INVALID,
                 "one over", params={"title": "t" * (MAX_FIELD_CHARS + 1)}),
    DocumentBomb("metadata of a 2 GiB flate bomb", "/v1/pdf/metadata", lambda: flate_bomb_pdf(2048), OK,
                 "the content stream is copied, never inflated", params={"title": "x"}),
]  # fmt: skip


def _images(name: str, files: Callable[[], list[bytes]], expected: tuple[int, str | None], why: str) -> DocumentBomb:
    return DocumentBomb(f"from-images, {name}", "/v1/pdf/from-images", lambda: multipart(files()), expected, why,
                        f"multipart/form-data; boundary={BOUNDARY}", files=files)  # fmt: skip


def _tiny_png() -> bytes:
    return png_of_zeros(1, 1)


FROM_IMAGES = [
    _images(f"{MAX_IMAGES} images (at the limit)", lambda: [_tiny_png()] * MAX_IMAGES, OK, "a page each"),
    _images(f"{MAX_IMAGES + 1} images", lambda: [_tiny_png()] * (MAX_IMAGES + 1), TOO_LARGE,
            "refused before any image is read"),
    _images("a png header claiming 10 gigapixels", lambda: [png_claiming(100_000, 100_000)], TOO_LARGE,
            "refused from the header"),
    _images("a jpeg claiming 65535x65535", lambda: [jpeg_claiming_65535()], TOO_LARGE, "refused from the header"),
    _images("a png of 144 MP (420 KB)", lambda: [png_of_zeros(12_000, 12_000)], TOO_LARGE,
            "pixels 1,000x the file, refused from the header"),
    _images("a png of 49.99 MP (at the limit)", lambda: [png_of_zeros(7071, 7071)], OK,
            "its compressed pixels copied, never inflated"),
    _images("a png of 49.99 MP whose pixel data is garbage", lambda: [png_of_zeros(7071, 7071, idat=b"x" * 100)],
            OK, "proves the pixels are not decoded"),
]  # fmt: skip


def _big_content(size: int) -> bytes:
    """One page whose content stream is `size` bytes of text operators in Helvetica."""
    import io

    import pikepdf

    pdf = pikepdf.Pdf.new()
    page = pdf.add_blank_page()
    font = pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Helvetica)
    page.obj.Resources = pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=font))
    line = b"BT /F1 12 Tf 72 700 Td (hello world secret) Tj ET\n"
    page.obj.Contents = pdf.make_stream(line * (size // len(line) + 1))
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def _forms(levels: int, fan_out: int, *, self_drawing: bool = False) -> bytes:
    """A page drawing form 1, which draws form 2 `fan_out` times, ... down to form `levels` (or, self-drawing:
    one form that draws itself), each with a word of text."""
    import io

    import pikepdf

    pdf = pikepdf.Pdf.new()
    page = pdf.add_blank_page()
    font = pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Helvetica)
    below = None
    for _ in range(1 if self_drawing else levels):
        draws = b" /Fm Do" * fan_out if (below is not None or self_drawing) else b""
        form = pdf.make_stream(b"BT /F1 12 Tf 0 0 Td (secret) Tj ET" + draws)
        form.Type, form.Subtype, form.BBox = pikepdf.Name.XObject, pikepdf.Name.Form, [0, 0, 612, 792]
        resources = pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=font))
        resources.XObject = pikepdf.Dictionary(Fm=form if self_drawing else below)
        if below is None and not self_drawing:
            del resources["/XObject"]
        form.Resources = resources
        below = form
    page.obj.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(Fm=below))
    page.obj.Contents = pdf.make_stream(b"/Fm Do")
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


REDACT = "/v1/pdf/redact"
MATCHES_AT_LIMIT = MAX_FOUND_AREAS - MAX_AREAS
REDACTIONS = [
    DocumentBomb("redact, a pattern that backtracks", REDACT, lambda: make_pdf(["a" * 3000 + "!"]), OK,
                 "(a|aa)+$ over 3,000 a's: seconds for a backtracking engine, linear for RE2",
                 params={"pattern": ["(a|aa)+$", "(a+)+$", "^(a|a?)+$"]}),
    DocumentBomb("redact, a pattern with a lookbehind", REDACT, _eight, INVALID, "RE2 has none",
                 params={"pattern": ["(?<=page )1"]}),
    DocumentBomb(f"redact, {MAX_AREAS} areas (at the limit)", REDACT, _eight, OK, "each filled",
                 params={"area": [f"{1 + n % 8},{n % 500},{n % 700},10,10" for n in range(MAX_AREAS)]}),
    DocumentBomb("redact, 10,000 areas", REDACT, _eight, INVALID, "refused by the parameter's length",
                 params={"area": ["1,0,0,10,10"] * 10_000}),
    DocumentBomb(f"redact, a pattern matching {MATCHES_AT_LIMIT} times (at the limit)", REDACT,
                 lambda: make_pdf(["x" * 1000] * (MATCHES_AT_LIMIT // 1000)), OK, "an area per match",
                 params={"pattern": ["x"], "area": ["1,0,0,1,1"] * MAX_AREAS}),
    DocumentBomb(f"redact, a pattern matching {MATCHES_AT_LIMIT + 1} times", REDACT,
                 lambda: make_pdf(["x" * 1000] * (MATCHES_AT_LIMIT // 1000) + ["x"]), TOO_LARGE,
                 "one match over, counted before any page is changed",
                 params={"pattern": ["x"], "area": ["1,0,0,1,1"] * MAX_AREAS}),
    DocumentBomb("redact, a form that draws itself", REDACT, lambda: _forms(1, 2, self_drawing=True), TOO_LARGE,
                 "a loop, refused by the page cost walk as render-page and extract-text refuse it (pdfium's process "
                 "died loading the page)", params={"area": ["1,0,0,100,100"]}),
    DocumentBomb("redact, forms drawing forms twice, 10 deep (within the bound)", REDACT, lambda: _forms(10, 2), OK,
                 "1,023 draws", params={"area": ["1,0,0,100,100"]}),
    DocumentBomb("redact, forms drawing forms twice, 11 deep", REDACT, lambda: _forms(11, 2), TOO_LARGE,
                 "2,047 draws, counted before pdfium expands them", params={"area": ["1,0,0,100,100"]}),
    DocumentBomb("redact, forms drawing forms twice, 20 deep", REDACT, lambda: _forms(20, 2), TOO_LARGE,
                 "2^20 draws in 40 objects: gigabytes in pdfium's text page", params={"area": ["1,0,0,100,100"]}),
    DocumentBomb("redact of a 2 GiB flate bomb", REDACT, lambda: flate_bomb_pdf(2048), TOO_LARGE,
                 "refused before pdfium inflates it", params={"text": ["secret"]}),
    DocumentBomb("redact, 3 MiB of content under an area", REDACT, lambda: _big_content(3 << 20), TOO_LARGE,
                 "over the content a redaction replays", params={"area": ["1,0,0,612,792"]}),
    DocumentBomb("redact, 256 KiB of content under an area", REDACT, lambda: _big_content(256 << 10), OK,
                 "within it", params={"area": ["1,0,0,612,792"]}),
]  # fmt: skip
DOCUMENT_BOMBS: list[DocumentBomb] = [*PAGES, *UNLOCK_AND_METADATA, *FROM_IMAGES, *REDACTIONS]
