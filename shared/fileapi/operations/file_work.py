"""Work over files that takes over from the generic path for its route, so that memory stays flat in file size.

The generic path (fileapi.operations.executor) runs a route's own endpoint, whose converter takes the input's
bytes (read in a conversion worker) and answers in memory. For the routes below a converter over files does
the same work on disk instead: PDF split, merge, compress and rotate page by page (qpdf reads and writes
files on demand), image conversion from a file (Pillow decodes from disk; the pixels are bounded). Each gets
the arguments the route's binder validated, exactly as the endpoint would (the same names and options), and
answers the same files and details the generic path would make of the endpoint's answer. They apply to the
client's uploads; an inline body kept for `Prefer: respond-async` is within the synchronous limit and runs
through the generic path.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fileapi.operations.produced import Produced, ProducedFile, field_file_name

Arguments = dict[str, Any]
Run = Callable[[list[Path], Arguments, Path], Awaitable[Produced]]
PDF = "application/pdf"


@dataclass(frozen=True)
class FileWork:
    """The file-based work of one route: `run(inputs, arguments, folder)` over the route's uploads, in order (as
    many as fileapi.web.operation_inputs allows it)."""

    run: Run


async def _split(inputs: list[Path], arguments: Arguments, folder: Path) -> Produced:
    from fileapi.convert.pdf_files import split_pdf_file
    from fileapi.web.conversions import isolated

    parts = await isolated(split_pdf_file, str(inputs[0]), str(folder), ranges=arguments["ranges"])
    return Produced(
        [
            ProducedFile(Path(part), PDF, field_file_name(f"pdfs[{index}]", PDF), f"pdfs[{index}]")
            for index, part in enumerate(parts)
        ]
    )


async def _merge(inputs: list[Path], arguments: Arguments, folder: Path) -> Produced:
    from fileapi.convert.pdf_files import merge_pdf_files
    from fileapi.web.conversions import isolated

    out = folder / "merged.pdf"
    await isolated(merge_pdf_files, [str(path) for path in inputs], str(out))
    return Produced([ProducedFile(out, PDF, "result.pdf")])


async def _compress(inputs: list[Path], arguments: Arguments, folder: Path) -> Produced:
    from fileapi.convert.pdf_files import compress_pdf_file
    from fileapi.web.conversions import isolated

    out = folder / "compressed.pdf"
    sizes = await isolated(compress_pdf_file, str(inputs[0]), str(out), **arguments["options"].model_dump())
    return Produced([ProducedFile(out, PDF, field_file_name("bytes", PDF), "bytes")], dict(sizes))


async def _rotate(inputs: list[Path], arguments: Arguments, folder: Path) -> Produced:
    from fileapi.convert.pdf_files import rotate_pdf_file
    from fileapi.web.conversions import isolated

    out = folder / "rotated.pdf"
    await isolated(
        rotate_pdf_file,
        str(inputs[0]),
        str(out),
        degrees=int(arguments["degrees"]),
        pages=arguments["pages"],
        keep_active_content=arguments["keepActiveContent"],
    )
    return Produced([ProducedFile(out, PDF, "result.pdf")])


async def _convert(inputs: list[Path], arguments: Arguments, folder: Path) -> Produced:
    from fileapi.convert.image_files import convert_image_file
    from fileapi.operations.produced import extension
    from fileapi.web.conversions import isolated

    options = arguments["options"]
    out = folder / "converted"
    headers = await isolated(convert_image_file, str(inputs[0]), str(out), **options.model_dump())
    media_type = options.to.media_type
    return Produced(
        [ProducedFile(out, media_type, "result" + extension(media_type))], {"headers": headers} if headers else {}
    )


FILE_WORK: dict[str, FileWork] = {
    "/v1/pdf/split": FileWork(_split),
    "/v1/pdf/merge": FileWork(_merge),
    "/v1/pdf/compress": FileWork(_compress),
    "/v1/pdf/rotate": FileWork(_rotate),
    "/v1/image/convert": FileWork(_convert),
}
