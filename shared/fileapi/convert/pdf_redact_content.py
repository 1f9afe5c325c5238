"""Removing what a content stream draws under redaction areas: glyphs, inline images, and the text inside form
XObjects; image XObjects under an area are reported for their pixels to be overwritten.

The stream is parsed by qpdf (pikepdf.parse_content_stream) and replayed with the graphics and text state
(CTM, q/Q, Tm, Tf, Tc, Tw, Tz, TL, Ts), so every glyph's place on the page is known from its font's widths
(fileapi.convert.pdf_fonts). A glyph is removed when the centre of its box (advance width by ascent to
descent) lies in an area: a text-showing operator that loses glyphs becomes a TJ whose removed glyphs are
replaced by their advance as a kerning number, so every remaining glyph keeps its place, and a run crossing
an area's edge is split. Text in a font whose glyphs cannot be placed is handled whole: a text object (BT to
ET) any of whose strings might reach an area (each byte taken as one em wide) loses all its strings.
Marked content over removed glyphs loses its /ActualText, /Alt and /E (a reader would extract them instead).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from fileapi.convert import deadline
from fileapi.convert.pdf_fonts import FontMetrics, font_metrics
from fileapi.convert.pdf_redact_areas import IDENTITY, UNIT_SQUARE, AreaIndex, Matrix, Rect, apply, multiply
from fileapi.errors import InvalidInput, TooLarge

if TYPE_CHECKING:
    import pikepdf

MAX_FORM_DEPTH = 12  # forms inside forms; deeper ones under an area are removed whole
# Forms replayed for one page: a form drawing another twice, 20 levels deep, is 2^20 draws in 40 objects.
MAX_FORM_DRAWS = 2_000
# Decoded bytes of the content replayed in one stream (a page's streams together): 1 MB of text operators (25,000
# Tj of 18 glyphs) all under an area is replayed in 6 s here; the deadline stops what a bound lets through.
MAX_CONTENT_BYTES = 2 * 1024 * 1024
_SHOW = {"Tj", "TJ", "'", '"'}
_SPOKEN = ("/ActualText", "/Alt", "/E")
_UNKNOWN_EM = 1.0  # the width assumed for each byte of a string in a font that cannot be measured


@dataclass
class _State:
    ctm: Matrix = IDENTITY
    char_spacing: float = 0.0
    word_spacing: float = 0.0
    scale: float = 1.0  # Tz / 100
    leading: float = 0.0
    font: FontMetrics | None = None
    font_known: bool = False  # a Tf was seen whose font could be read
    size: float = 0.0
    rise: float = 0.0


@dataclass
class ImageUse:
    """An image XObject drawn over an area: where (its name in `resources`) and how (its CTM)."""

    resources: Any  # pikepdf.Dictionary
    name: str
    ctm: Matrix
    areas: list[Rect]


@dataclass
class Edit:
    """What redacting one content stream did."""

    instructions: list[Any] | None = None  # the new stream's instructions; None: unchanged
    images: list[ImageUse] = field(default_factory=list)
    removed_glyphs: int = 0


class _Redactor:
    def __init__(self, pdf: pikepdf.Pdf, areas: AreaIndex, fonts: dict[tuple[int, int], FontMetrics | None]) -> None:
        self.pdf = pdf
        self.areas = areas
        self.fonts = fonts
        self.draws = 0
        self.drawing: set[tuple[int, int]] = set()  # the forms being replayed, outermost first

    def redact(self, container: Any, resources: Any, state: _State, depth: int = 0) -> Edit:
        """Redact the content of `container` (a page or a form XObject) drawn from `state` (a form inherits the
        graphics state, text state included, of the `Do` that draws it)."""
        import pikepdf

        edit = Edit()
        _check_size(container)
        instructions = pikepdf.parse_content_stream(container)
        out: list[Any] = []
        changed = False
        state = replace(state)
        stack: list[_State] = []
        block: list[tuple[bool, Any]] | None = None  # the current text object's output: (is a show, instruction)
        tainted = False
        tm = tlm = IDENTITY
        uncertain: Matrix | None = None  # where text of an unreadable font began, until the next positioning
        marked: list[list[Any]] = []  # open marked content: [touched, its BDC or BMC]
        for count, instruction in enumerate(instructions):
            if count % 4096 == 0:
                deadline.check()
            if isinstance(instruction, pikepdf.ContentStreamInlineImage):
                if self.areas.touches(UNIT_SQUARE.transformed(state.ctm)):
                    changed = True
                    continue
                out.append(instruction)
                continue
            operands, operator = list(instruction.operands), str(instruction.operator)
            target = block if block is not None else None
            if operator == "q":
                stack.append(replace(state))
            elif operator == "Q":
                if stack:
                    state = stack.pop()
            elif operator == "cm" and len(operands) == 6:
                state.ctm = multiply(_matrix(operands), state.ctm)
            elif operator == "BT":
                block, tainted, tm, tlm, uncertain = [], False, IDENTITY, IDENTITY, None
            elif operator == "ET" and block is not None:
                out.extend(_closed(block, tainted))
                changed |= tainted and any(show for show, _ in block)
                block = None
                out.append(instruction)
                continue
            elif operator == "Tc" and operands:
                state.char_spacing = float(operands[0])
            elif operator == "Tw" and operands:
                state.word_spacing = float(operands[0])
            elif operator == "Tz" and operands:
                state.scale = float(operands[0]) / 100
            elif operator == "TL" and operands:
                state.leading = float(operands[0])
            elif operator == "Ts" and operands:
                state.rise = float(operands[0])
            elif operator == "Tf" and len(operands) == 2:
                state.font = self._font(resources, operands[0])
                state.font_known = state.font is not None
                state.size = float(operands[1])
            elif operator in ("Td", "TD") and len(operands) == 2:
                if operator == "TD":
                    state.leading = -float(operands[1])
                tm = tlm = multiply((1, 0, 0, 1, float(operands[0]), float(operands[1])), tlm)
                uncertain = None
            elif operator == "Tm" and len(operands) == 6:
                tm = tlm = _matrix(operands)
                uncertain = None
            elif operator == "T*":
                tm = tlm = multiply((1, 0, 0, 1, 0, -state.leading), tlm)
                uncertain = None
            elif operator in _SHOW and block is not None:
                if operator in ("'", '"'):
                    if operator == '"' and len(operands) == 3:
                        state.word_spacing, state.char_spacing = float(operands[0]), float(operands[1])
                    tm = tlm = multiply((1, 0, 0, 1, 0, -state.leading), tlm)
                    uncertain = None
                result = self._show(state, tm, uncertain, operands[-1] if operands else None, operator == "TJ")
                tm, uncertain = result.tm, result.uncertain
                if result.taint:
                    tainted = True
                if result.removed:
                    edit.removed_glyphs += result.removed
                    changed = True
                    for entry in marked:
                        entry[0] = True
                    block.extend((False, prefix) for prefix in _prefix(instruction, operator, operands))
                    block.append((True, result.replacement))
                else:
                    block.append((True, instruction))
                continue
            elif operator == "Do" and operands and block is None:
                kept, changed_here = self._draw(operands[0], resources, state, depth, edit)
                changed |= changed_here
                if kept is not None:
                    out.append(kept)
                continue
            elif operator in ("BDC", "BMC"):
                marked.append([False, instruction])
            elif operator == "EMC" and marked:
                touched, opening = marked.pop()
                if touched and _speaks(opening):
                    quiet = _silenced(opening)
                    changed |= (block is not None and _replace_last(block, opening, quiet)) or _replace_last(
                        out, opening, quiet
                    )
            if target is not None:
                target.append((False, instruction))
            else:
                out.append(instruction)
        if block is not None:  # a text object left open at the end
            out.extend(_closed(block, tainted))
            changed |= tainted
        if changed:
            edit.instructions = out
        return edit

    def _font(self, resources: Any, name: Any) -> FontMetrics | None:
        import pikepdf

        fonts = resources.get("/Font") if isinstance(resources, pikepdf.Dictionary) else None
        font = fonts.get(name) if isinstance(fonts, pikepdf.Dictionary) else None
        if font is None:
            return None
        if not font.is_indirect:
            try:
                return font_metrics(font)
            except (ValueError, TypeError, OverflowError):
                return None
        key = font.objgen
        if key not in self.fonts:
            try:
                self.fonts[key] = font_metrics(font)
            except (ValueError, TypeError, OverflowError):  # a malformed width or matrix
                self.fonts[key] = None
        return self.fonts[key]

    def _show(self, state: _State, tm: Matrix, uncertain: Matrix | None, operand: Any, is_array: bool) -> _Shown:
        import pikepdf

        items = list(operand) if is_array and isinstance(operand, pikepdf.Array) else [operand]
        font = state.font
        horizontal = state.size * state.scale
        if font is None or uncertain is not None or horizontal == 0:
            return self._show_unmeasured(state, tm, uncertain, items)
        # The op's glyphs and kerning numbers as (code or None, advance in text space, glyph width in em).
        steps: list[tuple[bytes | None, float, float, float]] = []
        total = 0.0
        for item in items:
            if isinstance(item, pikepdf.String):
                for glyph in font.glyphs(bytes(item)):
                    spacing = state.char_spacing + (state.word_spacing if glyph.is_space else 0.0)
                    advance = (glyph.width * state.size + spacing) * state.scale
                    steps.append((glyph.code, advance, glyph.width, total))
                    total += advance
            else:
                number = float(item)
                advance = -number / 1000 * horizontal
                steps.append((None, advance, number, total))
                total += advance
        base = multiply(tm, state.ctm)  # a point (x, y) of text space, x along the line from the op's start
        shown = _Shown(multiply((1, 0, 0, 1, total, 0), tm), None)
        middle = state.size * (font.ascent + font.descent) / 2 + state.rise
        reach = Rect(min(0.0, total), state.size * font.descent + state.rise, max(0.0, total),
                     state.size * font.ascent + state.rise).transformed(base)  # fmt: skip
        if not self.areas.touches(reach):
            return shown
        parts: list[Any] = []  # the new TJ array: runs of kept codes (bytearray) and kerning numbers
        for code, advance, width, start in steps:
            if code is None:
                _add_number(parts, width)  # a kerning number, kept
            elif self.areas.covers(*apply(base, start + horizontal * width / 2, middle)):
                shown.removed += 1
                _add_number(parts, -advance * 1000 / horizontal)
            elif parts and isinstance(parts[-1], bytearray):
                parts[-1] += code
            else:
                parts.append(bytearray(code))
        if shown.removed:
            array = pikepdf.Array(
                [pikepdf.String(bytes(part)) if isinstance(part, bytearray) else round(part, 4) for part in parts]
            )
            shown.replacement = pikepdf.ContentStreamInstruction([array], pikepdf.Operator("TJ"))
        return shown

    def _show_unmeasured(self, state: _State, tm: Matrix, uncertain: Matrix | None, items: list[Any]) -> _Shown:
        """A string whose glyphs cannot be placed: its whole possible extent, from where uncertainty began."""
        import pikepdf

        length = sum(len(bytes(item)) for item in items if isinstance(item, pikepdf.String))
        start = uncertain or tm
        end = multiply((1, 0, 0, 1, length * _UNKNOWN_EM * abs(state.size or 1) * abs(state.scale or 1), 0), tm)
        size = abs(state.size) or 1.0
        corners = []
        for matrix in (start, end):
            for y in (-0.3 * size, 1.0 * size):
                corners.append(apply(multiply(matrix, state.ctm), 0, y + state.rise))
        xs, ys = [x for x, _ in corners], [y for _, y in corners]
        reach = Rect(min(xs), min(ys), max(xs), max(ys))
        return _Shown(end, start, taint=self.areas.touches(reach))

    def _draw(self, name: Any, resources: Any, state: _State, depth: int, edit: Edit) -> tuple[Any | None, bool]:
        """A `Do`: the instruction to keep (None: removed) and whether anything changed."""
        import pikepdf

        ctm = state.ctm
        instruction = pikepdf.ContentStreamInstruction([name], pikepdf.Operator("Do"))
        xobjects = resources.get("/XObject") if isinstance(resources, pikepdf.Dictionary) else None
        xobject = xobjects.get(name) if isinstance(xobjects, pikepdf.Dictionary) else None
        if not isinstance(xobject, pikepdf.Stream):
            return instruction, False
        subtype = xobject.get("/Subtype")
        if subtype == pikepdf.Name.Image:
            reach = UNIT_SQUARE.transformed(ctm)
            if self.areas.touches(reach):
                edit.images.append(ImageUse(resources, str(name), ctm, self.areas.within(reach)))
            return instruction, False
        if subtype != pikepdf.Name.Form:
            return instruction, False
        matrix = _matrix(xobject.get("/Matrix", [1, 0, 0, 1, 0, 0]))
        placed = multiply(matrix, ctm)
        bbox = xobject.get("/BBox")
        if isinstance(bbox, pikepdf.Array) and len(bbox) == 4:
            x0, y0, x1, y1 = (float(value) for value in bbox)
            reach = Rect(min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)).transformed(placed)
            if not self.areas.touches(reach):
                return instruction, False
        if depth >= MAX_FORM_DEPTH or xobject.objgen in self.drawing:
            return None, True  # too deep, or a form that draws itself: removed where it meets an area
        self.draws += 1
        if self.draws > MAX_FORM_DRAWS:
            raise TooLarge(f"a page draws forms under the redaction areas more than {MAX_FORM_DRAWS:,} times")
        inner_resources = _own_resources(self.pdf, xobject.get("/Resources", resources))
        self.drawing.add(xobject.objgen)
        try:
            inner = self.redact(xobject, inner_resources, replace(state, ctm=placed), depth + 1)
        finally:
            self.drawing.discard(xobject.objgen)
        if inner.instructions is None and not inner.images:
            return instruction, False
        edit.images.extend(inner.images)
        edit.removed_glyphs += inner.removed_glyphs
        data = pikepdf.unparse_content_stream(inner.instructions) if inner.instructions is not None else None
        copy = self.pdf.make_stream(data if data is not None else xobject.read_bytes())
        for key, value in xobject.items():
            if key not in ("/Length", "/Filter", "/DecodeParms", "/Resources"):
                copy[key] = value
        copy.Resources = inner_resources
        xobjects[name] = copy  # type: ignore[index]  # `resources` is this page's or this copy's own (see _own_resources)
        return instruction, True


@dataclass
class _Shown:
    tm: Matrix
    uncertain: Matrix | None
    taint: bool = False
    removed: int = 0
    replacement: Any = None


def _check_size(container: Any) -> None:
    import pikepdf

    contents = container.obj.get("/Contents") if isinstance(container, pikepdf.Page) else container
    streams = contents if isinstance(contents, pikepdf.Array) else [contents]
    size = sum(len(stream.read_bytes()) for stream in streams if isinstance(stream, pikepdf.Stream))
    if size > MAX_CONTENT_BYTES:
        raise TooLarge(
            f"a content stream under a redaction area decodes to {size:,} bytes; at most {MAX_CONTENT_BYTES:,}"
        )


def _add_number(parts: list[Any], number: float) -> None:
    if parts and isinstance(parts[-1], float):
        parts[-1] += number
    else:
        parts.append(number)


def _prefix(instruction: Any, operator: str, operands: list[Any]) -> list[Any]:
    """What ' and " do before showing, as their own operators (the string becomes a TJ)."""
    import pikepdf

    if operator == "'":
        return [pikepdf.ContentStreamInstruction([], pikepdf.Operator("T*"))]
    if operator == '"' and len(operands) == 3:
        return [
            pikepdf.ContentStreamInstruction([operands[0]], pikepdf.Operator("Tw")),
            pikepdf.ContentStreamInstruction([operands[1]], pikepdf.Operator("Tc")),
            pikepdf.ContentStreamInstruction([], pikepdf.Operator("T*")),
        ]
    return []


def _closed(block: list[tuple[bool, Any]], tainted: bool) -> list[Any]:
    """A text object's instructions; when tainted, without any string shown (" keeps its spacing)."""
    if not tainted:
        return [instruction for _, instruction in block]
    kept = []
    for show, instruction in block:
        if not show:
            kept.append(instruction)
            continue
        operator = str(instruction.operator)
        kept.extend(_prefix(instruction, operator, list(instruction.operands))[:2] if operator == '"' else [])
    return kept


def _replace_last(instructions: list[Any], old: Any, new: Any) -> bool:
    """Replace the last occurrence of the instruction object `old` in `instructions` (the stream's output, or an
    open text object's as (is a show, instruction)) by `new`; False when it is not there."""
    for index in range(len(instructions) - 1, -1, -1):
        entry = instructions[index]
        if entry is old:
            instructions[index] = new
            return True
        if isinstance(entry, tuple) and entry[1] is old:
            instructions[index] = (entry[0], new)
            return True
    return False


def _speaks(instruction: Any) -> bool:
    import pikepdf

    operands = list(instruction.operands)
    return len(operands) == 2 and isinstance(operands[1], pikepdf.Dictionary) and any(k in operands[1] for k in _SPOKEN)


def _silenced(instruction: Any) -> Any:
    import pikepdf

    tag, properties = list(instruction.operands)
    quiet = pikepdf.Dictionary({key: value for key, value in properties.items() if key not in _SPOKEN})
    return pikepdf.ContentStreamInstruction([tag, quiet], pikepdf.Operator("BDC"))


def _matrix(operands: Any) -> Matrix:
    values = [float(value) for value in operands]
    if len(values) != 6:
        return IDENTITY
    return (values[0], values[1], values[2], values[3], values[4], values[5])


def _own_resources(pdf: pikepdf.Pdf, resources: Any) -> Any:
    """A copy of a resource dictionary whose /XObject dictionary is its own too, so that a form or image replaced
    for one page does not change another page that shares the dictionary."""
    import pikepdf

    if not isinstance(resources, pikepdf.Dictionary):
        return pikepdf.Dictionary()
    copy = pikepdf.Dictionary({key: value for key, value in resources.items()})
    xobjects = resources.get("/XObject")
    if isinstance(xobjects, pikepdf.Dictionary):
        copy.XObject = pikepdf.Dictionary({key: value for key, value in xobjects.items()})
    return copy


def redact_page_content(
    pdf: pikepdf.Pdf, page: pikepdf.Page, areas: AreaIndex, fonts: dict[tuple[int, int], FontMetrics | None]
) -> Edit:
    """Remove what `page` draws under `areas` (see the module); the page's content and resources are replaced
    when anything changed. The image XObjects under an area come back in `images` for their pixels."""
    import pikepdf

    resources = _own_resources(pdf, _inherited(page.obj, "/Resources"))
    edit = _Redactor(pdf, areas, fonts).redact(page, resources, _State())
    if edit.instructions is not None:
        page.obj.Contents = pdf.make_stream(pikepdf.unparse_content_stream(edit.instructions))
    if edit.instructions is not None or edit.images:
        page.obj.Resources = resources
    return edit


def _inherited(page: Any, key: str) -> Any:
    """A page attribute, from the page or the nearest ancestor that has it (PDF 1.7, 7.7.3.4)."""
    node, hops = page, 0
    while node is not None and hops < 64:
        if key in node:
            return node[key]
        node, hops = node.get("/Parent"), hops + 1
    return None


def check_form_draws(page: pikepdf.Page, number: int) -> None:
    """Refuse page `number` when its forms, drawn as its content says (a form drawing others, each drawing more),
    add up to more than MAX_FORM_DRAWS draws, or when a form draws itself: before pdfium expands them (2^20
    draws of one word took gigabytes; pdfium's process died loading a page whose form draws itself). Each form is
    counted once (memoised by object), only its `Do` operators parsed.

    :raises TooLarge: too many draws. :raises InvalidInput: a form that draws itself.
    """
    import pikepdf

    counts: dict[tuple[int, int], int] = {}
    open_forms: set[tuple[int, int]] = set()

    def draws(container: Any, resources: Any, depth: int) -> int:
        key = container.objgen if isinstance(container, pikepdf.Stream) else None
        if key is not None:
            if key in open_forms:
                raise InvalidInput(f"page {number} has a form that draws itself (a loop)")
            if key in counts:
                return counts[key]
            open_forms.add(key)
        xobjects = resources.get("/XObject") if isinstance(resources, pikepdf.Dictionary) else None
        total = 0
        if isinstance(xobjects, pikepdf.Dictionary):
            if depth > MAX_FORM_DEPTH * 4:
                raise InvalidInput(f"page {number} has forms nested more than {MAX_FORM_DEPTH * 4} deep")
            for instruction in pikepdf.parse_content_stream(container, "Do"):
                name = instruction.operands[0] if instruction.operands else None
                form = xobjects.get(name) if isinstance(name, pikepdf.Name) else None
                if isinstance(form, pikepdf.Stream) and form.get("/Subtype") == pikepdf.Name.Form:
                    total += 1 + draws(form, form.get("/Resources", resources), depth + 1)
                if total > MAX_FORM_DRAWS:
                    raise TooLarge(f"page {number} draws forms more than {MAX_FORM_DRAWS:,} times")
        if key is not None:
            open_forms.discard(key)
            counts[key] = total
        return total

    draws(page, _inherited(page.obj, "/Resources"), 0)
