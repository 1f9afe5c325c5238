"""The predicted cost of interpreting PDF pages (pdfium: render-page, extract-text), read from the structure.

A page's content draws form XObjects, tiling patterns, shadings and annotation appearances by name, and
each of those may draw others: a few kilobytes of forms that draw the next one ten times, eight deep, are
10^8 draws (pdfium ran to a 2 GiB worker limit for 6-7 s). The walk decodes each content stream once,
counts its references by name, and multiplies along them with one memoised cost per object, so it is
linear in the objects and bytes of the file, not in the draws. A reference loop is refused: pdfium
follows it (a form drawing itself three times did not finish in 60 s).

Rates: PDFium (pypdfium2) at 150 dpi on the development machine, CPU time and peak memory in one process per
case (`python -m bench.cost_rates` prints each beside the prediction); reading the text costs about as much.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fileapi.convert import deadline
from fileapi.convert.pdf_errors import pdf_problem
from fileapi.convert.pdf_io import MAX_DECODED_STREAM_BYTES
from fileapi.errors import InvalidInput, TooLarge

if TYPE_CHECKING:
    import pikepdf

# The budgets: CPU time a quarter of the 20 s deadline, memory under half the Pdf function's 1,769 MB.
BUDGET_SECONDS = 5.0
BUDGET_BYTES = 768 * 1024 * 1024
DRAW_NS = 6_000  # each form XObject or appearance drawn: 10^5 draws of a one-operator form 0.53 s
DRAW_BYTES = 1_700  # held per form drawn, until the page is closed: those 10^5 draws held 162 MiB
PATTERN_NS = 25_000  # each tiling pattern fill: 10^4 nested fills 0.24 s, 10^5 2.3 s
CONTENT_NS = 80  # each decoded content byte: 1,000,000 "0 0 1 1 re f" (13 MB) 1.0 s
CONTENT_BYTES = 27  # held per decoded content byte: those 13 MB held 341 MiB

# A name (#xx escapes allowed) before the operator that uses it, comments and white space between.
_REFERENCE = re.compile(rb"/([^\s/\[\]()<>{}%]*)(?:\s|%[^\r\n]*)*(Do|scn|SCN|sh)(?![^\s/\[\]()<>{}%])")
_ESCAPE = re.compile(rb"#([0-9A-Fa-f]{2})")
# Operators that paint with the current colour, and so with a pattern set before them by scn or SCN.
_PAINTING = re.compile(rb"(?<![^\s\])>])(?:f\*?|F|B\*?|b\*?|S|s|Tj|TJ|'|\")(?![^\s/\[\]()<>{}%])")


@dataclass
class Cost:
    """What interpreting one content stream costs, with everything it draws."""

    draws: float = 0.0  # forms and appearances drawn
    patterns: float = 0.0  # tiling pattern fills
    content_bytes: float = 0.0  # decoded content interpreted, counted at each draw
    most: dict[str, float] = field(default_factory=dict)  # object label -> times drawn

    def add(self, other: Cost, times: float) -> None:
        self.draws += other.draws * times
        self.patterns += other.patterns * times
        self.content_bytes += other.content_bytes * times
        for label, count in other.most.items():
            self.most[label] = self.most.get(label, 0.0) + count * times

    @property
    def seconds(self) -> float:
        return (self.draws * DRAW_NS + self.patterns * PATTERN_NS + self.content_bytes * CONTENT_NS) / 1e9

    @property
    def peak_bytes(self) -> float:
        return self.draws * DRAW_BYTES + self.content_bytes * CONTENT_BYTES


def check_page_costs(pdf: pikepdf.Pdf, pages: list[int], *, action: str) -> None:
    """Refuse pages (1-based numbers of `pdf`) whose content would take pdfium longer or more memory
    than the budgets allow: time summed over `pages`, memory per page (pdfium frees a page's objects).

    :param action: what is done with the pages ('rendering', 'reading the text of'), for the message.
    :raises TooLarge: saying which page, how much, what is drawn most and what to do.
    :raises InvalidInput: a content stream that cannot be decoded.
    """
    walker = _Walker()
    seconds = 0.0
    for number in pages:
        deadline.check()
        cost = walker.page(pdf.pages[number - 1].obj, number)
        seconds += cost.seconds
        if cost.peak_bytes > BUDGET_BYTES:
            mib = 2**20
            raise TooLarge(
                f"{action} page {number} would need about {cost.peak_bytes / mib:,.0f} MiB of memory, over the "
                f"{BUDGET_BYTES / mib:,.0f} MiB this service allows: {_what_costs(cost)}"
            )
        if seconds > BUDGET_SECONDS:
            raise TooLarge(
                f"{action} {_pages_so_far(pages, number)} would take about {seconds:,.0f} s of work, over the "
                f"{BUDGET_SECONDS:g} s this service allows; page {number}: {_what_costs(cost)}"
            )


def _pages_so_far(pages: list[int], number: int) -> str:
    count = pages.index(number) + 1
    return f"page {number}" if count == 1 else f"{count} pages (to page {number})"


def _what_costs(cost: Cost) -> str:
    label = max(cost.most, key=cost.most.__getitem__, default="")
    drawn = f"{label} is drawn {cost.most[label]:,.0f} times, " if label else ""
    return (
        f"{drawn}{cost.draws:,.0f} form and appearance draws, {cost.patterns:,.0f} pattern fills and "
        f"{cost.content_bytes / 1e6:,.1f} MB of content in all; send fewer pages, or a copy whose drawings are "
        "flattened (printed to PDF again)"
    )


class _Walker:
    def __init__(self) -> None:
        self.memo: dict[tuple[tuple[int, int], int], Cost] = {}
        self.active: set[tuple[int, int]] = set()

    def page(self, page: Any, number: int) -> Cost:
        import pikepdf

        what = f"page {number}"
        resources = _inherited(page, "/Resources")
        contents = page.get("/Contents")
        streams = contents if isinstance(contents, pikepdf.Array) else [contents] if contents is not None else []
        data = b"\n".join(_decoded(stream, what) for stream in streams if isinstance(stream, pikepdf.Stream))
        cost = self.content(data, resources, what)
        annotations = page.get("/Annots")
        for annotation in annotations if isinstance(annotations, pikepdf.Array) else []:
            appearance = annotation.get("/AP") if isinstance(annotation, pikepdf.Dictionary) else None
            normal = appearance.get("/N") if isinstance(appearance, pikepdf.Dictionary) else None
            states = [normal] if isinstance(normal, pikepdf.Stream) else []
            if isinstance(normal, pikepdf.Dictionary):
                states = [state for state in normal.values() if isinstance(state, pikepdf.Stream)]
            for state in states:
                self._draw(cost, state, resources, 1.0, what)
        return cost

    def content(self, data: bytes, resources: Any, what: str) -> Cost:
        """The cost of `data` (decoded content) and all it draws through `resources`."""
        cost = Cost(content_bytes=float(len(data)))
        uses = Counter((_unescaped(name), op) for name, op in _REFERENCE.findall(data))
        # A pattern set once paints every shape after it: the costliest pattern is charged for every
        # painting operator of the stream, the others once per use.
        patterns = [(name, op) for name, op in uses if op in (b"scn", b"SCN")]
        if patterns:
            fills = len(_PAINTING.findall(data))
            costliest = max(patterns, key=lambda use: self._pattern_seconds(use[0], resources, what))
            uses[costliest] = max(uses[costliest], fills)
        for (name, op), times in uses.items():
            self._resolve(cost, name, op, resources, float(times), what)
        return cost

    def _resolve(self, cost: Cost, name: bytes, op: bytes, resources: Any, times: float, what: str) -> None:
        """Add `times` uses of resource `name` by operator `op` (Do, scn, SCN or sh) to `cost`."""
        import pikepdf

        category = "/XObject" if op == b"Do" else "/Shading" if op == b"sh" else "/Pattern"
        table = resources.get(category) if isinstance(resources, pikepdf.Dictionary) else None
        key = "/" + name.decode("latin-1")
        target = table.get(key) if isinstance(table, pikepdf.Dictionary) else None
        if isinstance(target, pikepdf.Stream) and (
            target.get("/Subtype") == pikepdf.Name.Form or target.get("/PatternType") == 1
        ):
            self._draw(cost, target, resources, times, what)
        elif target is not None:
            cost.draws += times  # an image, a shading or a shading pattern: drawn once a use

    def _pattern_seconds(self, name: bytes, resources: Any, what: str) -> float:
        """The predicted seconds of one fill with pattern `name` of `resources` (0 for no tiling pattern)."""
        trial = Cost()
        self._resolve(trial, name, b"scn", resources, 1.0, what)
        return trial.seconds

    def _draw(self, cost: Cost, stream: Any, caller_resources: Any, times: float, what: str) -> None:
        """Add `times` draws of a form, pattern or appearance `stream` (its own resources, else the caller's)."""
        import pikepdf

        own = stream.get("/Resources")
        resources = own if isinstance(own, pikepdf.Dictionary) else caller_resources
        objgen = stream.objgen
        key = (objgen, 0 if isinstance(own, pikepdf.Dictionary) else id(resources))
        tiling = stream.get("/PatternType") == 1
        label = f"{'tiling pattern' if tiling else 'form XObject'} {objgen[0]} {objgen[1]}"
        inner = self.memo.get(key)
        if inner is None:
            if objgen in self.active:
                raise TooLarge(f"{what} draws {label} inside itself, without end; such a PDF cannot be interpreted")
            self.active.add(objgen)
            deadline.check()
            inner = self.content(_decoded(stream, what), resources, what)
            self.active.discard(objgen)
            self.memo[key] = inner
        cost.add(inner, times)
        if tiling:
            cost.patterns += times
        else:
            cost.draws += times
        cost.most[label] = cost.most.get(label, 0.0) + times


def _unescaped(name: bytes) -> bytes:
    """A name token's bytes with its #xx escapes decoded (/F#31 is /F1)."""
    return _ESCAPE.sub(lambda match: bytes([int(match[1], 16)]), name) if b"#" in name else name


def _inherited(page: Any, key: str) -> Any:
    """A page attribute, from the page or the nearest /Parent that has it (at most 64 levels, as pdf_io)."""
    node = page
    for _ in range(64):
        value = node.get(key)
        if value is not None:
            return value
        node = node.get("/Parent")
        if node is None:
            return None
    return None


def _decoded(stream: pikepdf.Object, what: str) -> bytes:
    """The decoded bytes of a content stream.

    :raises TooLarge: it decodes past qpdf's limit.
    :raises InvalidInput: it cannot be decoded.
    """
    import pikepdf

    try:
        return bytes(stream.read_bytes())
    except (Exception, RecursionError) as exc:  # DataDecodingError, unfilterable, not a stream...
        if isinstance(exc, pikepdf.DataDecodingError) and "limit" in str(exc):
            raise TooLarge(f"{what}'s content decodes to more than {MAX_DECODED_STREAM_BYTES:,} bytes") from None
        raise InvalidInput(f"{what}'s content cannot be decoded: {pdf_problem(exc)}") from None
