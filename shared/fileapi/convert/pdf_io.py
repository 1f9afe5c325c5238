"""PDF in and out through pikepdf (qpdf): open a document within bounds, and write one.

A document comes as bytes (a request's body) or as a file (an operation's input, which may be far larger than
memory should hold): qpdf reads a file opened by name on demand, parsing objects when a page needs them and
copying stream data from the input file to the output when it writes, so memory follows the number of
objects (pages, fonts, images), not the bytes of the images. The file is read, not mapped: a mapping would
count its whole size against a conversion worker's address-space limit.

Bounds: at most 2,000 pages; a stream decodes into at most 256 MiB; a page tree at most 64 levels deep.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fileapi.convert import fallbacks
from fileapi.convert.pdf_errors import damaged, reading
from fileapi.errors import InvalidInput, TooLarge, WrongPassword

if TYPE_CHECKING:
    import pikepdf

MAX_PAGES = 2_000
HEADER_BYTES = 1024
# A document: a request's bytes, or an operation's file.
Source = bytes | Path


def check_header(data: bytes, what: str = "the body") -> None:
    """Refuse what cannot be a PDF: empty, or no `%PDF-` in its first 1,024 bytes.

    :raises InvalidInput: naming `what`.
    """
    if not data:
        raise InvalidInput(f"{what} is empty: send a PDF")
    if b"%PDF-" not in data[:HEADER_BYTES]:
        raise InvalidInput(f"{what} is not a PDF (no %PDF- header)")


# qpdf decodes a stream into at most this much memory; a larger one is left undecoded (a small
# FlateDecode bomb cannot expand into gigabytes when a PDF is rewritten).
MAX_DECODED_STREAM_BYTES = 256 * 1024 * 1024
# Items in one array or dictionary, and warnings while opening one document. A page tree whose
# /Kids name one page 3 million times, kept in a compressed object stream (26 KB), made qpdf copy
# the page 3 million times, with a warning each: 28 s and 6.6 GB before a page count could be
# checked. With these limits it is refused in under half a second.
MAX_CONTAINER_ITEMS = 100_000
MAX_WARNINGS = 5_000
_limits_set = False


def _set_qpdf_limits() -> None:
    global _limits_set
    if not _limits_set:
        import pikepdf

        limit = MAX_DECODED_STREAM_BYTES
        pikepdf.settings.set_qpdf_limits(
            flate_max_memory=limit,
            png_max_memory=limit,
            run_length_max_memory=limit,
            tiff_max_memory=limit,
            parser_max_container_size=MAX_CONTAINER_ITEMS,
            doc_max_warnings=MAX_WARNINGS,
        )
        _limits_set = True


def open_pdf(source: Source, *, what: str = "the body", password: str | None = None) -> pikepdf.Pdf:
    """Open with pikepdf (qpdf repairs broken cross-reference tables): bytes, or a file read on demand.

    :param password: the user or owner password of an encrypted document (None: only the empty password is
        tried, and a document that needs one is invalid input).
    :raises InvalidInput: not a PDF, unreadable, or password-protected (and no `password` given).
    :raises WrongPassword: `password` was given and does not open the document.
    :raises TooLarge: more than 2,000 pages.
    """
    import pikepdf

    if isinstance(source, Path):
        with source.open("rb") as head:
            check_header(head.read(HEADER_BYTES), what)
    else:
        check_header(source, what)
    _set_qpdf_limits()
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "A password was provided", UserWarning)  # an unencrypted document
            if isinstance(source, Path):
                pdf = pikepdf.Pdf.open(source, access_mode=pikepdf.AccessMode.stream, password=password or "")
            else:
                pdf = pikepdf.Pdf.open(io.BytesIO(source), password=password or "")
    except pikepdf.PasswordError:
        if password is not None:
            needs = "the password given does not open it" if password else "it needs a password: give password"
            raise WrongPassword(f"{what} is encrypted and {needs}") from None
        raise InvalidInput(f"{what} is password-protected; remove the password first") from None
    except (pikepdf.PdfError, ValueError, OSError, RecursionError) as exc:
        rewritten = _rewritten_by_pypdf(source)
        if rewritten is None:
            raise damaged(what, exc) from None
        with reading(what):
            pdf = pikepdf.Pdf.open(io.BytesIO(rewritten))
        fallbacks.record("pikepdf -> pypdf rewrite")
    _check_page_tree(pdf, what)
    with reading(what):
        count = len(pdf.pages)
    if count > MAX_PAGES:
        raise TooLarge(f"{what} has {count} pages; at most {MAX_PAGES}")
    return pdf


MAX_PAGE_TREE_DEPTH = 64


def _rewritten_by_pypdf(source: Source) -> bytes | None:
    """The document as pypdf reads and writes it, for a file qpdf cannot open (None: pypdf cannot either)."""
    from pypdf import PdfReader, PdfWriter

    try:
        reader = PdfReader(source if isinstance(source, Path) else io.BytesIO(source), strict=False)
        if reader.is_encrypted:
            return None
        if len(reader.pages) > MAX_PAGES:
            return None
        writer = PdfWriter(clone_from=reader)
        out = io.BytesIO()
        writer.write(out)
    except (Exception, RecursionError):  # pypdf raises many types on damaged input; then there is no fallback
        return None
    return out.getvalue()


def _check_page_tree(pdf: pikepdf.Pdf, what: str) -> None:
    """Walk the page tree as written, before qpdf builds its page list.

    qpdf flattens the tree first and copies a page listed more than once, so a few kilobytes of
    /Kids naming one page millions of times (kept in a compressed object stream) cost gigabytes
    and minutes before a page count could be checked. The walk stops at MAX_PAGES leaves, and
    refuses loops and trees deeper than MAX_PAGE_TREE_DEPTH.
    """
    import pikepdf

    def broken(reason: str) -> InvalidInput:
        return InvalidInput(f"{what} has a broken page tree: {reason}")

    root = pdf.Root.get("/Pages")
    if not isinstance(root, pikepdf.Dictionary):
        raise broken("no /Pages dictionary")
    levels: list[Iterator[Any]] = [iter([root])]
    nodes: set[tuple[int, int]] = set()
    leaves = 0
    while levels:
        node = next(levels[-1], None)
        if node is None:
            levels.pop()
            continue
        if not isinstance(node, pikepdf.Dictionary):
            raise broken("a /Kids entry is not a dictionary")
        kids = node.get("/Kids")
        if kids is None or node.get("/Type") == pikepdf.Name.Page:
            leaves += 1
            if leaves > MAX_PAGES:
                raise TooLarge(f"{what} has more than {MAX_PAGES} pages")
            continue
        if not isinstance(kids, pikepdf.Array):
            raise broken("/Kids is not an array")
        key = node.objgen
        if key != (0, 0):
            if key in nodes:
                raise broken(f"object {key[0]} appears twice (a loop)")
            nodes.add(key)
        if len(levels) >= MAX_PAGE_TREE_DEPTH or len(nodes) > MAX_PAGES:
            raise broken("it is too deep or has too many intermediate nodes")
        levels.append(iter(kids))


def save_pdf(pdf: pikepdf.Pdf) -> bytes:
    """Write with object streams and deduplicated, recompressed streams."""
    out = io.BytesIO()
    write_pdf(pdf, out)
    return out.getvalue()


def write_pdf(pdf: pikepdf.Pdf, target: Path | io.BytesIO) -> None:
    """Write `pdf` to a file or a buffer as `save_pdf` does."""
    import pikepdf

    with reading():
        # deterministic_id: the same document written twice is the same bytes (a new document has no /ID to keep)
        pdf.save(
            target,
            object_stream_mode=pikepdf.ObjectStreamMode.generate,
            compress_streams=True,
            deterministic_id=True,
        )
