"""The work an operation runs: a registry from the route it stands for to a function over files.

Each entry validates the route's options with the same model as the synchronous route (so a bad option is
a 400 when the operation is submitted, not a failed operation later), and runs over input paths into a
work folder. `run_work` is the one place the work is called.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, Field, ValidationError

from fileapi.errors import InvalidInput
from fileapi.models import QueryOptions
from fileapi.models.image import ConvertOptions
from fileapi.models.pdf import CompressOptions


@dataclass(frozen=True)
class OutputFile:
    """One file the work wrote: its path in the work folder, a name for the client, its media type."""

    path: Path
    name: str
    content_type: str


@dataclass(frozen=True)
class Outcome:
    """What the work gave: its files, in order, and the JSON fields of the route's answer beside them."""

    files: list[OutputFile]
    details: dict[str, object] = field(default_factory=dict)


Run = Callable[[list[Path], BaseModel, Path], Outcome]


@dataclass(frozen=True)
class Work:
    """The work of one route.

    :param options: the model of the route's query options (camelCase names, as the route takes them).
    :param run: the work: input paths (in order), the validated options, and a folder to write into.
    :param many_inputs: it takes several inputs (merge); else exactly one.
    """

    route: str
    options: type[BaseModel]
    run: Run
    many_inputs: bool = False

    def validated(self, raw: Mapping[str, str]) -> BaseModel:
        """The options of `raw` (query parameters as text), validated.

        :raises InvalidInput: an option missing, unknown to the model's types or out of range (naming it).
        """
        try:
            return self.options.model_validate(dict(raw))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "options"
            raise InvalidInput(f"{where}: {first['msg']}") from None

    def check_inputs(self, count: int) -> None:
        """:raises InvalidInput: a count of inputs the route does not take."""
        if count < 1 or (count > 1 and not self.many_inputs):
            wanted = "one or more uploads" if self.many_inputs else "exactly one upload"
            raise InvalidInput(f"{self.route} takes {wanted} (?upload=upl_...), not {count}")


class NoOptions(QueryOptions):
    """A route without options."""


class SplitOptions(QueryOptions):
    ranges: str = Field(max_length=1000, description="e.g. '1-3,4-4,7'.")


class RotateOptions(QueryOptions):
    degrees: Literal["90", "180", "270"]
    pages: Annotated[str | None, Field(max_length=1000)] = None


def _split(inputs: list[Path], options: BaseModel, folder: Path) -> Outcome:
    from fileapi.convert.pdf_files import split_pdf_file

    assert isinstance(options, SplitOptions)
    parts = split_pdf_file(inputs[0], folder, ranges=options.ranges)
    return Outcome([OutputFile(path, path.name, "application/pdf") for path in parts])


def _merge(inputs: list[Path], options: BaseModel, folder: Path) -> Outcome:
    from fileapi.convert.pdf_files import merge_pdf_files

    out = folder / "merged.pdf"
    merge_pdf_files(inputs, out)
    return Outcome([OutputFile(out, out.name, "application/pdf")])


def _compress(inputs: list[Path], options: BaseModel, folder: Path) -> Outcome:
    from fileapi.convert.pdf_files import compress_pdf_file

    assert isinstance(options, CompressOptions)
    if options.image_max_side is not None:
        raise InvalidInput("imageMaxSide is taken by the synchronous endpoint only; leave it out for an operation")
    out = folder / "compressed.pdf"
    compress_pdf_file(inputs[0], out, strip_metadata=options.strip_metadata)
    original, compressed = inputs[0].stat().st_size, out.stat().st_size
    if compressed >= original:  # never larger than the input: then the input is the result
        out.unlink()
        out = inputs[0]
        compressed = original
    saved = round(100 * (original - compressed) / original, 1) if original else 0.0
    details: dict[str, object] = {"originalSize": original, "compressedSize": compressed, "savedPercent": saved}
    return Outcome([OutputFile(out, "compressed.pdf", "application/pdf")], details)


def _rotate(inputs: list[Path], options: BaseModel, folder: Path) -> Outcome:
    from fileapi.convert.pdf_files import rotate_pdf_file

    assert isinstance(options, RotateOptions)
    out = folder / "rotated.pdf"
    rotate_pdf_file(inputs[0], out, degrees=int(options.degrees), pages=options.pages)
    return Outcome([OutputFile(out, out.name, "application/pdf")])


def _convert(inputs: list[Path], options: BaseModel, folder: Path) -> Outcome:
    from fileapi.convert.image_files import convert_image_file

    assert isinstance(options, ConvertOptions)
    out = folder / f"converted.{options.to.value}"
    convert_image_file(inputs[0], out, to=options.to, quality=options.quality)
    return Outcome([OutputFile(out, out.name, options.to.media_type)])


WORKS: dict[str, Work] = {
    work.route: work
    for work in (
        Work("/v1/pdf/split", SplitOptions, _split),
        Work("/v1/pdf/merge", NoOptions, _merge, many_inputs=True),
        Work("/v1/pdf/compress", CompressOptions, _compress),
        Work("/v1/pdf/rotate", RotateOptions, _rotate),
        Work("/v1/image/convert", ConvertOptions, _convert),
    )
}


def register(work: Work) -> None:
    """Add (or replace) the work of a route."""
    WORKS[work.route] = work


def work_for(route: str) -> Work:
    """The work of `route`.

    :raises InvalidInput: the route does not run as an operation (the message lists those that do).
    """
    work = WORKS.get(route)
    if work is None:
        raise InvalidInput(f"{route} does not take uploads; these do: {', '.join(sorted(WORKS))}")
    return work


def run_work(work: Work, inputs: list[Path], options: BaseModel, folder: Path) -> Outcome:
    """Run `work` over `inputs` into `folder` (the one place operations call work: in this process)."""
    return work.run(inputs, options, folder)
