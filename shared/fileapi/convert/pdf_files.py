"""PDF structure operations on files: split, merge, compress and rotate with pikepdf, page by page, on disk.

The synchronous converters (`fileapi.convert.pdf`) take and give bytes; these take paths and write paths,
for operations whose inputs are larger than memory should hold. qpdf reads a file opened by name on
demand: objects are parsed when a page needs them and stream data is copied from the input file to the
output file when it is written, so memory follows the number of objects (pages, fonts, images), not the
bytes of the images. The bounds are the synchronous ones: 2,000 pages a document, 5,000 a merge.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from fileapi.convert import deadline
from fileapi.convert.pages import parse_pages, parse_ranges
from fileapi.convert.pdf import MAX_MERGED_PAGES, MAX_PAGES, _check_page_tree, _set_qpdf_limits
from fileapi.convert.pdf_errors import damaged, reading
from fileapi.errors import InvalidInput, TooLarge

if TYPE_CHECKING:
    import pikepdf

# Parts one split may write: each becomes a stored file and a line of the operation's record.
MAX_SPLIT_PARTS = 2_000


def open_pdf_file(path: Path, *, what: str = "the file") -> pikepdf.Pdf:
    """Open the PDF at `path` for reading on demand (not loaded into memory), with the synchronous checks.

    :raises InvalidInput: not a PDF, unreadable, or password-protected.
    :raises TooLarge: more than 2,000 pages.
    """
    import pikepdf

    with path.open("rb") as head:
        start = head.read(1024)
    if not start:
        raise InvalidInput(f"{what} is empty: upload a PDF")
    if b"%PDF-" not in start:
        raise InvalidInput(f"{what} is not a PDF (no %PDF- header)")
    _set_qpdf_limits()
    try:
        pdf = pikepdf.Pdf.open(path, access_mode=pikepdf.AccessMode.stream)  # read, not mapped
    except pikepdf.PasswordError:
        raise InvalidInput(f"{what} is password-protected; remove the password first") from None
    except (pikepdf.PdfError, ValueError, OSError, RecursionError) as exc:
        raise damaged(what, exc) from None
    _check_page_tree(pdf, what)
    with reading(what):
        count = len(pdf.pages)
    if count > MAX_PAGES:
        pdf.close()
        raise TooLarge(f"{what} has {count} pages; at most {MAX_PAGES}")
    return pdf


def save_pdf_file(pdf: pikepdf.Pdf, path: Path) -> None:
    """Write `pdf` to `path` with object streams and recompressed streams (as `fileapi.convert.pdf.save_pdf`)."""
    import pikepdf

    with reading():
        pdf.save(path, object_stream_mode=pikepdf.ObjectStreamMode.generate, compress_streams=True)


def split_pdf_file(source: Path, out_dir: Path, *, ranges: str) -> list[Path]:
    """One PDF per range ('1-3,4-4,7'), in the order given, written to `out_dir` as part-1.pdf, part-2.pdf, ...

    :raises InvalidInput: a range that is malformed, reversed or outside the document.
    :raises TooLarge: more than MAX_SPLIT_PARTS ranges.
    """
    import pikepdf

    with open_pdf_file(source) as pdf:
        chosen = parse_ranges(ranges, len(pdf.pages))
        if len(chosen) > MAX_SPLIT_PARTS:
            raise TooLarge(f"{len(chosen)} ranges; a split writes at most {MAX_SPLIT_PARTS} files")
        parts = []
        for number, (first, last) in enumerate(chosen, start=1):
            deadline.check()
            path = out_dir / f"part-{number}.pdf"
            with pikepdf.Pdf.new() as part:
                with reading():
                    part.pages.extend(pdf.pages[first - 1 : last])
                save_pdf_file(part, path)
            parts.append(path)
    return parts


def merge_pdf_files(sources: list[Path], out: Path) -> None:
    """Concatenate the PDFs at `sources`, in order, into `out`; a file given twice is opened once, so its
    fonts and images are written once.

    :raises InvalidInput: no input, or an input that is not a readable PDF (naming its position).
    :raises TooLarge: more than 5,000 pages in all.
    """
    import pikepdf

    if not sources:
        raise InvalidInput("give at least one PDF to merge")
    opened: dict[Path, pikepdf.Pdf] = {}
    try:
        with pikepdf.Pdf.new() as merged:
            total = 0
            for position, path in enumerate(sources, start=1):
                deadline.check()
                source = opened.get(path) or opened.setdefault(path, open_pdf_file(path, what=f"file {position}"))
                total += len(source.pages)
                if total > MAX_MERGED_PAGES:
                    raise TooLarge(f"the merged document would have more than {MAX_MERGED_PAGES} pages")
                with reading(f"file {position}"):
                    merged.pages.extend(source.pages)
            save_pdf_file(merged, out)
    finally:
        for pdf in opened.values():
            pdf.close()


def compress_pdf_file(source: Path, out: Path, *, strip_metadata: bool = False) -> None:
    """Rewrite losslessly into `out` (object streams, recompressed streams, unreferenced resources dropped);
    with `strip_metadata`, without the info dictionary and XMP metadata."""
    with open_pdf_file(source) as pdf, reading():
        if strip_metadata:
            if "/Info" in pdf.trailer:
                del pdf.trailer["/Info"]
            if "/Metadata" in pdf.Root:
                del pdf.Root["/Metadata"]
        pdf.remove_unreferenced_resources()
        save_pdf_file(pdf, out)


def rotate_pdf_file(source: Path, out: Path, *, degrees: int, pages: str | None = None) -> None:
    """Rotate the chosen pages (default all) clockwise by 90, 180 or 270, added to their /Rotate, into `out`.

    :raises InvalidInput: another angle, or pages outside the document.
    """
    if degrees not in (90, 180, 270):
        raise InvalidInput(f"degrees must be 90, 180 or 270, not {degrees}")
    with open_pdf_file(source) as pdf:
        for number in parse_pages(pages, len(pdf.pages)):
            deadline.check()
            with reading(f"page {number}"):
                pdf.pages[number - 1].rotate(degrees, relative=True)
        save_pdf_file(pdf, out)
