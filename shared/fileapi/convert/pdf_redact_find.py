"""What to redact: the options checked and parsed (areas, fill, texts, patterns), and the text and pattern
matches found on the pages by pdfium's text page, each line of a match becoming an area (the union of its
characters' loose boxes, which span the font's ascent to descent and each glyph's advance). Areas are upright
rectangles: on turned text a match's area is the upright box round it, and may take a neighbouring space.

Patterns run on RE2 (google-re2), which never backtracks: its time is linear in the text, whatever the
pattern. Measured on (a|aa)+$ over 3,000 a's and a '!': the `regex` module with a 1 s timeout was stopped
after 4.8 s (its timeout is checked coarsely); RE2 took 0.2 ms over 30 times that text. RE2 has no
lookarounds or backreferences: such a pattern is refused as invalid input.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fileapi.convert import deadline
from fileapi.convert.pdf_errors import reading
from fileapi.convert.pdf_options import MAX_AREAS, MAX_PATTERNS, MAX_TERM_CHARS, MAX_TEXTS
from fileapi.convert.pdf_redact_areas import Rect
from fileapi.errors import InvalidOption, TooLarge

if TYPE_CHECKING:
    import pikepdf

MAX_FOUND_AREAS = 10_000  # given and found together
MIN_SWEPT_CHARS = 4  # text under an area shorter than this is not searched for elsewhere (a lone 'e')
_BREAK_HYPHENS = {"\x02", "\ufffe"}
_FILL = re.compile(r"#([0-9a-fA-F]{6})")


@dataclass(frozen=True)
class Terms:
    """The options, checked: areas by page (0-based, user space), the fill colour (0..1 each), the texts and
    the compiled patterns."""

    areas: dict[int, list[Rect]]
    fill: tuple[float, float, float]
    texts: list[str]
    patterns: list[Any]  # compiled by re2
    area_count: int


def finditer(pattern: Any, text: str) -> list[Any]:
    """The non-empty matches of the RE2 `pattern` in `text`."""
    return [match for match in pattern.finditer(text) if match.end() > match.start()]


def parse_terms(pdf: pikepdf.Pdf, *, texts: list[str], patterns: list[str], areas: list[str], fill: str) -> Terms:
    """The options checked against the document `pdf`.

    :raises InvalidInput: nothing to redact; an area that is malformed, off the document's pages or empty; a fill
        that is not
        #rrggbb; an empty or over-long text or pattern, or a pattern that does not compile.
    :raises TooLarge: more than 1,000 areas, 100 texts or 20 patterns.
    """
    import re2

    if not (texts or patterns or areas):
        raise InvalidOption("give at least one text, pattern or area to redact")
    if len(areas) > MAX_AREAS:
        raise TooLarge(f"{len(areas):,} areas; at most {MAX_AREAS:,}")
    if len(texts) > MAX_TEXTS:
        raise TooLarge(f"{len(texts):,} texts; at most {MAX_TEXTS}")
    if len(patterns) > MAX_PATTERNS:
        raise TooLarge(f"{len(patterns):,} patterns; at most {MAX_PATTERNS}")
    for name, terms in (("text", texts), ("pattern", patterns)):
        for term in terms:
            if not term.strip() or len(term) > MAX_TERM_CHARS:
                raise InvalidOption(f"each {name} must be 1..{MAX_TERM_CHARS} characters, not only spaces")
    colour = _FILL.fullmatch(fill)
    if colour is None:
        raise InvalidOption(f"fill must be a colour such as #000000 (#rrggbb), not {fill[:20]!r}")
    rgb = bytes.fromhex(colour.group(1))
    options = re2.Options()
    options.log_errors = False  # RE2 would write the pattern to stderr: request content stays out of the logs
    compiled = []
    for pattern in patterns:
        try:
            compiled.append(re2.compile(pattern, options=options))
        except re2.error as exc:
            reason = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else ""
            raise InvalidOption(
                f"the pattern {pattern[:80]!r} is not a regular expression RE2 runs ({reason}; RE2 has no "
                "lookarounds or backreferences)"
            ) from None
    by_page: dict[int, list[Rect]] = {}
    for text in areas:
        page, rect = _area(pdf, text)
        by_page.setdefault(page, []).append(rect)
    return Terms(by_page, (rgb[0] / 255, rgb[1] / 255, rgb[2] / 255), list(texts), compiled, len(areas))


def _area(pdf: pikepdf.Pdf, text: str) -> tuple[int, Rect]:
    parts = text.split(",")
    shown = text[:60]
    if len(parts) != 5:
        raise InvalidOption(f"area {shown!r} must be page,x,y,width,height (five numbers)")
    try:
        page = int(parts[0])
        x, y, width, height = (float(part) for part in parts[1:])
    except ValueError:
        raise InvalidOption(f"area {shown!r} must be page,x,y,width,height (numbers)") from None
    if not 1 <= page <= len(pdf.pages):
        raise InvalidOption(f"area {shown!r}: page {page} is outside the document's {len(pdf.pages)} page(s)")
    if not all(math.isfinite(value) for value in (x, y, width, height)) or width <= 0 or height <= 0:
        raise InvalidOption(f"area {shown!r}: width and height must be positive numbers of points")
    box = pdf.pages[page - 1].mediabox
    left, bottom = min(float(box[0]), float(box[2])), min(float(box[1]), float(box[3]))
    right, top = max(float(box[0]), float(box[2])), max(float(box[1]), float(box[3]))
    rect = Rect(left + x, bottom + y, left + x + width, bottom + y + height)
    if not all(math.isfinite(edge) for edge in (rect.x0, rect.y0, rect.x1, rect.y1)) or not rect.intersects(
        Rect(left, bottom, right, top)
    ):
        raise InvalidOption(
            f"area {shown!r} lies outside page {page}, which is {right - left:g} x {top - bottom:g} points "
            "(x and y count from its lower left corner)"
        )
    return page - 1, rect


@dataclass
class Found:
    """What the pages' text gave: areas by page, and the strings redacted (to remove from the rest)."""

    areas: dict[int, list[Rect]] = field(default_factory=dict)
    strings: set[str] = field(default_factory=set)
    count: int = 0


def find_on_pages(document: Any, terms: Terms) -> Found:
    """The areas of every text and pattern match on each page of the pdfium `document`, and the strings
    redacted: each match, and the text of at least 4 characters under each area given.

    :raises TooLarge: more than 10,000 areas in all.
    """
    import pypdfium2.raw as raw

    found = Found()
    for index in range(len(document)):
        deadline.check()
        given = terms.areas.get(index, [])
        if not (terms.texts or terms.patterns or given):
            continue
        with reading(f"page {index + 1}"):  # pdfium cannot load a damaged page: the input's damage, 400
            page = document[index]
            textpage = page.get_textpage()
        try:
            count = textpage.count_chars()
            chars = "".join(chr(raw.FPDFText_GetUnicode(textpage.raw, i)) for i in range(count))
            page_chars = _PageChars(textpage)
            _find_on_page(terms, given, chars, page_chars, found.areas.setdefault(index, []), found)
        finally:
            textpage.close()
            page.close()
        if found.count + terms.area_count > MAX_FOUND_AREAS:
            raise TooLarge(f"the texts and patterns match more than {MAX_FOUND_AREAS:,} times; make them more specific")
    found.strings.discard("")
    return found


class _PageChars:
    """A page's characters' loose boxes and generated flags, asked of pdfium only for the characters a match or
    an area needs (a 117-page book has 148,635: all boxes took 2 s of its 3.7 s search).

    A character of marked content with /ActualText is that text's, not a glyph's: pdfium spreads the text's
    characters evenly over the text object that the marked content draws, so its box is not where any glyph
    of it is (a match in "Name: SECRET here" so spread missed the glyph T). Its box is the whole text object's:
    which glyph stands for which character is not known, so all of them go.
    """

    def __init__(self, textpage: Any) -> None:
        self.textpage = textpage
        self.boxes: dict[int, Rect] = {}
        self.generated: dict[int, bool] = {}
        self.spoken: dict[int, Rect | None] = {}  # a text object's box when it has /ActualText, by its address

    def box(self, index: int) -> Rect:
        if index not in self.boxes:
            box = Rect(*_ordered(self.textpage.get_charbox(index, loose=True)))
            spoken = self._spoken_object(index)
            self.boxes[index] = box.union(spoken) if spoken is not None else box
        return self.boxes[index]

    def _spoken_object(self, index: int) -> Rect | None:
        """The box of the text object drawing character `index` when marked content with /ActualText holds it."""
        import ctypes

        import pypdfium2.raw as raw

        obj = raw.FPDFText_GetTextObject(self.textpage.raw, index)
        address = ctypes.cast(obj, ctypes.c_void_p).value
        if not address:
            return None
        if address not in self.spoken:
            self.spoken[address] = None
            length = ctypes.c_ulong(0)
            for number in range(raw.FPDFPageObj_CountMarks(obj)):
                mark = raw.FPDFPageObj_GetMark(obj, number)
                if raw.FPDFPageObjMark_GetParamStringValue(mark, b"ActualText", None, 0, ctypes.byref(length)):
                    left, bottom, right, top = (ctypes.c_float() for _ in range(4))
                    if raw.FPDFPageObj_GetBounds(obj, left, bottom, right, top):
                        self.spoken[address] = Rect(*_ordered((left.value, bottom.value, right.value, top.value)))
                    break
        return self.spoken[address]

    def is_generated(self, index: int) -> bool:
        if index not in self.generated:
            import pypdfium2.raw as raw

            self.generated[index] = bool(raw.FPDFText_IsGenerated(self.textpage.raw, index))
        return self.generated[index]


def _find_on_page(
    terms: Terms, given: list[Rect], chars: str, page_chars: _PageChars, areas: list[Rect], found: Found
) -> None:
    searched, origins = _searchable(chars)
    spans: list[tuple[int, int]] = []
    for text in terms.texts:
        wanted = " ".join(text.split())
        start = searched.find(wanted)
        while start >= 0:
            spans.append((start, start + len(wanted)))
            start = searched.find(wanted, start + len(wanted))
    for pattern in terms.patterns:
        spans.extend((match.start(), match.end()) for match in finditer(pattern, searched))
    for start, end in spans:
        lines = _lines(range(origins[start], origins[end - 1] + 1), page_chars)
        areas.extend(box for box, _ in lines)
        found.count += len(lines)
        found.strings.add(searched[start:end].strip())
    for area in given:
        inside = [
            i for i in range(len(chars)) if not page_chars.is_generated(i) and _centre_in(page_chars.box(i), area)
        ]
        for _, members in _lines(inside, page_chars):
            text = " ".join("".join(chars[i] for i in members).split())
            if len(text) >= MIN_SWEPT_CHARS:
                found.strings.add(text)


def _searchable(chars: str) -> tuple[str, list[int]]:
    """The page's text as searched: each run of white space (line ends included) one space, and the hyphen that
    breaks a word at a line's end left out (pdfium gives it as U+0002), so that a text or pattern matches across
    lines and hyphenation; with each character's index in the page's characters (the last of a white run)."""
    searched: list[str] = []
    origins: list[int] = []
    for index, char in enumerate(chars):
        if char in _BREAK_HYPHENS:
            continue
        if char.isspace():
            if searched and searched[-1] == " ":
                origins[-1] = index
                continue
            char = " "
        searched.append(char)
        origins.append(index)
    return "".join(searched), origins


def _ordered(box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    left, bottom, right, top = box
    return min(left, right), min(bottom, top), max(left, right), max(bottom, top)


def _centre_in(box: Rect, area: Rect) -> bool:
    return area.contains((box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2)


def _lines(indexes: Any, chars: _PageChars) -> list[tuple[Rect, list[int]]]:
    """Characters grouped into lines (a new line where one starts below or above the last, or goes back): the
    union of each line's boxes, and its members. Generated characters (spaces and line ends pdfium adds) and
    empty boxes are left out."""
    lines: list[tuple[Rect, list[int]]] = []
    for i in indexes:
        if chars.is_generated(i):
            continue
        box = chars.box(i)
        if box.x1 <= box.x0 or box.y1 <= box.y0:
            continue
        if lines:
            last, members = lines[-1]
            previous = chars.box(members[-1])
            middle = (box.y0 + box.y1) / 2
            if previous.y0 <= middle <= previous.y1 and box.x0 >= previous.x0 - (previous.x1 - previous.x0):
                lines[-1] = (last.union(box), [*members, i])
                continue
        lines.append((box, [i]))
    return lines
