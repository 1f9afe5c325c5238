"""PDF split, merge, compress and rotate from files to files, for operations, with the synchronous converters'
checks and bounds (fileapi.convert.pdf, pdf_edit: 2,000 pages a document, 5,000 a merge or a split).

Memory follows the number of objects (pages, fonts, images), not the bytes of the images (`make bench`, the
Operations rows, at two sizes). Compress and rotate are the synchronous converters' own work over a document
qpdf reads from disk on demand, written to disk. Split and merge copy pages between documents, and pikepdf copies
a page's stream data into memory when it does (it opens every document with qpdf's `setImmediateCopyFrom`):
splitting a 120 MB scan that way held 161 MB. So they run qpdf's own page selection (QPDFJob, through
`pikepdf.Job`: the same library, no command-line tool), which reads stream data from the input file as it
writes: 38 MB. The documents are opened and checked first as the synchronous converters check them. Paths are
strings, so that a conversion worker gets them pickled as they are (fileapi.web.conversions.isolated).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from fileapi.convert import deadline
from fileapi.convert.pdf import opened_for_merge, rotated, split_ranges
from fileapi.convert.pdf_edit import compress_into
from fileapi.convert.pdf_errors import reading
from fileapi.convert.pdf_io import open_pdf, write_pdf

# How qpdf writes, as fileapi.convert.pdf_io.write_pdf does: object streams, streams compressed.
WRITE_OPTIONS = ("--object-streams=generate", "--compress-streams=y")


def split_pdf_file(source: str, folder: str, *, ranges: str) -> list[str]:
    """One PDF per range of the file `source` ('1-3,4-4,7'), in the order given, written into `folder` as
    part-1.pdf, part-2.pdf, ...; their paths.

    :raises InvalidInput: not a readable PDF, or a range that is malformed, reversed or outside the document.
    :raises TooLarge: more than 2,000 pages, or ranges holding more than 5,000 pages in all.
    """
    with open_pdf(Path(source)) as document:
        chosen = split_ranges(ranges, len(document.pages))
    parts = []
    for number, (first, last) in enumerate(chosen, start=1):
        deadline.check()
        path = os.path.join(folder, f"part-{number}.pdf")
        _select_pages([source, f"{first}-{last}"], path)
        parts.append(path)
    return parts


def merge_pdf_files(sources: list[str], out: str) -> None:
    """The files `sources` concatenated in order into `out` (a file given twice is read once, and its fonts and
    images written once).

    :raises InvalidInput: no input, or one that is not a readable PDF (naming its position).
    :raises TooLarge: more than 5,000 pages in all.
    """
    paths = [Path(source) for source in sources]
    for _ in opened_for_merge([(path.resolve(), path) for path in paths]):
        pass  # each opened and checked, the page total bounded
    _select_pages(sources, out)


def _select_pages(selection: list[str], out: str) -> None:
    """qpdf's `--empty --pages <selection> -- <out>`: a new document of the pages selected (files, each
    optionally followed by its page ranges), written as `write_pdf` writes.

    :raises InvalidInput: qpdf could not read or write them.
    """
    import pikepdf

    with reading():
        pikepdf.Job(["qpdf", "--empty", "--pages", *selection, "--", out, *WRITE_OPTIONS]).run()


def compress_pdf_file(
    source: str,
    out: str,
    *,
    strip_metadata: bool = False,
    image_max_side: int | None = None,
    keep_active_content: bool = False,
) -> dict[str, int | float]:
    """The file `source` compressed into `out` as `fileapi.convert.pdf_edit.compress_pdf` does (never larger
    than the input: then `out` is a copy of it); the answer's originalSize, compressedSize and savedPercent.

    :raises InvalidInput: imageMaxSide out of 16..10000, or not a readable PDF.
    """
    written = compress_into(
        Path(source),
        Path(out),
        original_size=os.path.getsize(source),
        strip_metadata=strip_metadata,
        image_max_side=image_max_side,
        keep_active_content=keep_active_content,
    )
    if written.kept_input:
        shutil.copyfile(source, out)
    return {
        "originalSize": written.original_size,
        "compressedSize": written.compressed_size,
        "savedPercent": written.saved_percent,
    }


def rotate_pdf_file(
    source: str, out: str, *, degrees: int | str, pages: str | None = None, keep_active_content: bool = False
) -> None:
    """The file `source` with its chosen pages rotated (as `fileapi.convert.pdf.rotate_pdf`) into `out`.

    :raises InvalidInput: another angle than 90, 180 or 270, or pages outside the document.
    """
    write_pdf(rotated(Path(source), degrees=degrees, pages=pages, keep_active_content=keep_active_content), Path(out))
