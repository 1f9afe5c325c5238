"""Pipelines: conversions of the catalogue run one after another in one operation, their files on its disk.

`plan` checks a whole pipeline before anything runs, from the declarations alone: every stage names a
conversion, its options pass the conversion's own model (no unknown name), and each stage can take what the one
before gives (a PDF stage after one that gives images, or any stage after one that gives JSON alone, is 400
naming the stage). `run_pipeline` runs the stages over the inputs: a stage that takes one file runs once per
file it is given, a stage that takes several takes them all in order, and every file a stage gives goes on to
the next. Intermediate files never leave the work folder; only the last stage's files are the results.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from fileapi.catalogue.declaration import ANY, IMAGE, PDF, SVG, Conversion, Reads, Shape
from fileapi.catalogue.outcome import Outcome, OutFile
from fileapi.catalogue.registry import named
from fileapi.errors import ApiError, InvalidInput
from fileapi.models import QueryOptions
from fileapi.models.pipelines import PipelineOutput, PipelineRequest, StageReport
from fileapi.net.addresses import EgressPolicy
from fileapi.net.put import put_file
from fileapi.operations.conversions import RunInWorker, run_conversion, validated_options
from fileapi.unknown_names import closest_name

PIPELINES_ROUTE = "/v1/pipelines"
NOTHING = "nothing"  # what a stage that gives JSON alone hands the next: no file
# What a pipeline's stored request holds (its options): the request as accepted, and the plan's input bound.
PIPELINE = "pipeline"
MAX_INPUT_BYTES = "maxInputBytes"
# A URL input: connected within 10 s, all of it within 10 minutes (a 2 GiB input at 3.6 MB/s).
URL_CONNECT_SECONDS = 10.0
URL_TOTAL_SECONDS = 600.0


class StageFailed(Exception):
    """A pipeline stopped at a stage: the stage's error, named, and every stage's report (`details`)."""

    def __init__(self, ran: Ran, details: dict[str, object]) -> None:
        assert ran.error is not None
        self.error = ran.error
        self.details = details
        failed = ran.stages[ran.succeeded]
        self.message = f"stages[{ran.succeeded}] ({failed.run}): {ran.error.message}"
        super().__init__(self.message)


@dataclass(frozen=True)
class Stage:
    """One checked stage: its conversion and its validated options."""

    conversion: Conversion
    options: BaseModel | None


@dataclass(frozen=True)
class Ran:
    """What a pipeline did: the last stage's files and details, each stage's report, how many succeeded, and
    the error that stopped it (None: every stage succeeded)."""

    files: tuple[OutFile, ...]
    details: Any
    stages: list[StageReport]
    succeeded: int
    error: ApiError | None


def kind_given(conversion: Conversion) -> str:
    """The kind of file a conversion gives (PDF, IMAGE, SVG, a text media type, ANY when it varies), or NOTHING."""
    gives = conversion.gives
    if gives.shape is Shape.JSON:
        return NOTHING
    if gives.shape is Shape.JSON_FILES:
        return gives.kind or ANY
    types = set(gives.media_types)
    if types == {PDF}:
        return PDF
    if types == {SVG}:
        return SVG
    if types and all(media.startswith("image/") and media != SVG for media in types):
        return IMAGE
    if gives.shape is Shape.TEXT and len(types) == 1:
        return gives.media_types[0]
    return ANY


def plan(request: PipelineRequest) -> list[Stage]:
    """The pipeline's stages, checked before anything runs.

    :raises InvalidInput: naming the stage (`stages[i]`) and why: no such conversion, an option its model
        refuses or does not know, or it cannot take what the stage before gives.
    """
    stages = []
    kind: str | None = None if request.inputs else NOTHING  # the inputs' kind is known when they are read
    for index, stage in enumerate(request.stages):
        where = f"stages[{index}]"
        conversion = named(stage.run, field=f"{where}.run")
        takes = conversion.takes
        if not takes.takes_file and (index > 0 or request.inputs):
            raise InvalidInput(f"{where}: {conversion.name} takes no file (its options alone): it can only be the "
                               "first stage of a pipeline without inputs")  # fmt: skip
        if takes.takes_file and kind == NOTHING:
            before = "the pipeline has no inputs" if index == 0 else f"stages[{index - 1}] gives JSON alone"
            raise InvalidInput(f"{where}: {conversion.name} takes a file, and {before}")
        if takes.takes_file and kind not in (None, ANY) and takes.accepts not in (ANY, kind):
            raise InvalidInput(
                f"{where}: {conversion.name} takes {_kind_name(takes.accepts)}, and stages[{index - 1}] gives "
                f"{_kind_name(kind)}"
            )
        stages.append(Stage(conversion, _options(conversion, stage.options, where)))
        kind = kind_given(conversion)
    return stages


def _kind_name(kind: str | None) -> str:
    names = {PDF: "PDFs", IMAGE: "images", SVG: "SVG documents", ANY: "any file"}
    return names.get(kind or ANY, f"{kind} files")


def _options(conversion: Conversion, given: dict[str, Any], where: str) -> BaseModel | None:
    """The stage's options validated by the conversion's own model; query options take JSON scalars as the
    text a query string would carry (90 as "90", true as "true")."""
    model = conversion.options
    if model is None:
        if given:
            raise InvalidInput(f"{where}.options: {conversion.name} takes no options")
        return None
    known = sorted(info.alias or name for name, info in model.model_fields.items())
    for name in given:
        if name not in known:
            close = closest_name(name, known)
            hint = f"; did you mean {close}?" if close else f"; it takes {', '.join(known)}"
            raise InvalidInput(f"{where}.options: unknown option {name!r} for {conversion.name}{hint}")
    if issubclass(model, QueryOptions):
        given = {name: _query_text(value) for name, value in given.items()}
    try:
        return validated_options(conversion, given)
    except InvalidInput as exc:
        raise InvalidInput(f"{where}.options ({conversion.name}): {exc.message}") from None


def _query_text(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return value


async def run_pipeline(stages: list[Stage], inputs: list[Path], folder: Path, run: RunInWorker) -> Ran:
    """Run `stages` over `inputs` (in order) in `folder`; a stage's failure stops the pipeline (reported, not
    raised), the stages after it are skipped."""
    reports = [StageReport(run=stage.conversion.name, status="waiting") for stage in stages]
    files: list[Path] = list(inputs)
    last = Outcome()
    for index, stage in enumerate(stages):
        started = time.monotonic()
        stage_folder = folder / f"stage-{index + 1}"
        stage_folder.mkdir()
        try:
            outcomes = await _stage(stage, files, stage_folder, run)
        except ApiError as error:
            reports[index] = StageReport(
                run=stage.conversion.name, status="failed", seconds=round(time.monotonic() - started, 3)
            )
            for later in range(index + 1, len(stages)):
                reports[later] = StageReport(run=stages[later].conversion.name, status="skipped")
            return Ran((), None, reports, index, error)
        made = _named(outcomes)
        files = [Path(item.path) for item in made if item.path is not None]
        details = [outcome.details for outcome in outcomes if outcome.details is not None]
        last = Outcome(made, outcomes[0].details if len(outcomes) == 1 else (details or None))
        reports[index] = StageReport(
            run=stage.conversion.name,
            status="succeeded",
            seconds=round(time.monotonic() - started, 3),
            files=[item.name for item in made],
            headers=_headers_by_file(outcomes, made),
        )
    return Ran(last.files, last.details, reports, len(stages), None)


async def _stage(stage: Stage, files: list[Path], folder: Path, run: RunInWorker) -> list[Outcome]:
    """The stage's outcomes: one over all its files (a conversion that takes several, or none), else one per file."""
    conversion = stage.conversion
    if not conversion.takes.takes_file:
        return [await run_conversion(conversion, stage.options, [], folder, run)]
    if conversion.takes.reads is Reads.FILES or len(files) == 1:
        return [await run_conversion(conversion, stage.options, files, folder, run)]
    outcomes = []
    for position, path in enumerate(files, start=1):
        part = folder / str(position)
        part.mkdir()
        outcomes.append(await run_conversion(conversion, stage.options, [path], part, run))
    return outcomes


def _headers_by_file(outcomes: list[Outcome], made: tuple[OutFile, ...]) -> dict[str, dict[str, str]] | None:
    """Each one-file outcome's headers by the name its file has in `made` (the outcomes' files in order, as
    `_named` gives them); None when no outcome has headers."""
    by_file: dict[str, dict[str, str]] = {}
    position = 0
    for outcome in outcomes:
        if outcome.headers and len(outcome.files) == 1:
            by_file[made[position].name] = dict(outcome.headers)
        position += len(outcome.files)
    return by_file or None


def _named(outcomes: list[Outcome]) -> tuple[OutFile, ...]:
    """The outcomes' files in order, each name unique (`2-result.pdf` for the second input's when there are
    several)."""
    if len(outcomes) == 1:
        return outcomes[0].files
    return tuple(
        OutFile(made.media_type, f"{position}-{made.name}", made.field, made.data, made.path)
        for position, outcome in enumerate(outcomes, start=1)
        for made in outcome.files
    )


def put_outputs(output: PipelineOutput, files: tuple[OutFile, ...], policy: EgressPolicy) -> list[dict[str, object]]:
    """PUT the i-th final file to `output.put[i]` (retried, never raised): each file's report. A file beyond the
    URLs given is left at its link; a URL beyond the files is reported as having none."""
    reports: list[dict[str, object]] = []
    for index, target in enumerate(output.put):
        field = f"output.put[{index}]"
        if index >= len(files):
            reports.append({"file": "", "attempts": 0, "error": f"{field}: the pipeline gave {len(files)} file(s)"})
            continue
        made = files[index]
        assert made.path is not None
        result = put_file(target.url, Path(made.path), field=f"{field}.url", headers=target.headers, policy=policy)
        report: dict[str, object] = {"file": made.name, "attempts": result.attempts}
        if result.status is not None:
            report["status"] = result.status
        if result.error is not None:
            report["error"] = result.error.message
        reports.append(report)
    return reports
