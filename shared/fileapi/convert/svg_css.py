"""CSS in SVG as usvg applies it: style sheets of `<style>` elements and `style` attributes.

usvg (simplecss) matches selectors of type, `*`, `#id`, `.class`, attribute tests (`[a]`, `[a=v]`,
`~=`, `|=`, `^=`, `$=`, `*=`) and `:first-child` (any other pseudo-class never matches), joined by
descendant, child (`>`) and adjacent (`+`) combinators; a rule it cannot parse is skipped. Only
presentation attributes are taken from CSS. Precedence, as usvg: a style sheet rule overrides the
element's own attribute, a later rule an earlier one and the `style` attribute every rule; an
`!important` declaration is overridden by nothing that comes after it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

# usvg takes these from CSS (svgtree's is_presentation), plus the `marker` shorthand.
PRESENTATION = frozenset(
    """
    alignment-baseline baseline-shift background-color clip-path clip-rule color color-interpolation
    color-interpolation-filters color-rendering direction display dominant-baseline fill fill-opacity
    fill-rule filter flood-color flood-opacity font-family font-kerning font-optical-sizing font-size
    font-size-adjust font-stretch font-style font-variant font-weight font-variation-settings
    glyph-orientation-horizontal glyph-orientation-vertical image-rendering isolation letter-spacing
    lighting-color marker-end marker-mid marker-start mask mask-type mix-blend-mode opacity overflow
    paint-order shape-rendering stop-color stop-opacity stroke stroke-dasharray stroke-dashoffset
    stroke-linecap stroke-linejoin stroke-miterlimit stroke-opacity stroke-width text-anchor
    text-decoration text-overflow text-rendering transform transform-origin unicode-bidi vector-effect
    visibility white-space word-spacing writing-mode
    """.split()  # noqa: SIM905 (the names as usvg lists them, in one block)
)
_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_RULE = re.compile(r"([^{}@]*)\{([^{}]*)\}")
_AT_BLOCK = re.compile(r"@[^{};]*(?:;|\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\})")
_COMPOUND_PART = re.compile(
    r"""\*|[A-Za-z_][\w-]*|\#[\w-]+|\.[\w-]+|:[\w-]+|\[\s*([\w:-]+)\s*(?:([~|^$*]?=)\s*("[^"]*"|'[^']*'|[^\]\s]+)\s*)?\]"""
)
_COMBINATOR = re.compile(r"\s*([>+])\s*|\s+")


class Element(Protocol):
    """What selector matching reads of an element."""

    @property
    def name(self) -> str: ...
    @property
    def raw(self) -> dict[str, str]: ...
    @property
    def parent(self) -> Element | None: ...
    @property
    def previous(self) -> Element | None: ...


@dataclass(frozen=True)
class Compound:
    """One compound selector: a type (or None for any), then tests that all must pass."""

    tag: str | None
    ids: tuple[str, ...]
    classes: tuple[str, ...]
    attributes: tuple[tuple[str, str, str], ...]  # (name, operator or "", value)
    first_child: bool

    def key(self) -> tuple[str, str]:
        """The most selective index the compound is found under: ("id", x), ("class", x), ("tag", x) or ("*", "")."""
        if self.ids:
            return ("id", self.ids[0])
        if self.classes:
            return ("class", self.classes[0])
        return ("tag", self.tag) if self.tag else ("*", "")


@dataclass(frozen=True)
class Rule:
    """A selector (compounds right to left, with the combinator to the next one) and its declarations."""

    compounds: tuple[Compound, ...]
    combinators: tuple[str, ...]  # combinators[i] joins compounds[i] to compounds[i + 1] (its left)
    declarations: tuple[tuple[str, str, bool], ...]
    order: int


def declarations(text: str) -> Iterator[tuple[str, str, bool]]:
    """(name, value, important) of each declaration in a `style` attribute or a rule's block."""
    for part in _COMMENT.sub("", text).split(";"):
        name, colon, value = part.partition(":")
        if not colon:
            continue
        value = value.strip()
        important = value.lower().endswith("!important")
        if important:
            value = value[: -len("!important")].rstrip()
        yield name.strip().lower(), value, important


@dataclass(frozen=True)
class StyleSheet:
    rules: list[Rule]  # those that set a presentation attribute, in order
    selectors: int  # every selector, which usvg tests against every element


def parse_style_sheet(text: str) -> StyleSheet:
    """The rules of a style sheet in their order; at-rules and unparsable selectors are skipped."""
    text = _AT_BLOCK.sub("", _COMMENT.sub("", text))
    rules: list[Rule] = []
    selectors = 0
    for match in _RULE.finditer(text):
        kept = tuple((n, v, i) for n, v, i in declarations(match.group(2)) if n in PRESENTATION or n == "marker")
        for selector in match.group(1).split(","):
            parsed = _selector(selector.strip())
            if parsed is None:
                continue
            selectors += 1
            if kept:
                compounds, combinators = parsed
                rules.append(Rule(compounds, combinators, kept, len(rules)))
    return StyleSheet(rules, selectors)


def _selector(text: str) -> tuple[tuple[Compound, ...], tuple[str, ...]] | None:
    compounds: list[Compound] = []
    combinators: list[str] = []
    position = 0
    while True:
        compound, position = _compound(text, position)
        if compound is None:
            return None
        compounds.append(compound)
        if position == len(text):
            break
        joint = _COMBINATOR.match(text, position)
        if joint is None or joint.end() == len(text):
            return None
        combinators.append(joint.group(1) or " ")
        position = joint.end()
    compounds.reverse()
    combinators.reverse()
    return tuple(compounds), tuple(combinators)


def _compound(text: str, position: int) -> tuple[Compound | None, int]:
    tag: str | None = None
    ids: list[str] = []
    classes: list[str] = []
    attributes: list[tuple[str, str, str]] = []
    first_child = False
    start = position
    while position < len(text):
        part = _COMPOUND_PART.match(text, position)
        if part is None:
            break
        piece = part.group(0)
        if position == start and (piece == "*" or piece[0].isalpha() or piece[0] == "_"):
            tag = None if piece == "*" else piece
        elif piece[0] == "#":
            ids.append(piece[1:])
        elif piece[0] == ".":
            classes.append(piece[1:])
        elif piece[0] == ":":
            if piece != ":first-child":
                return None, position  # a pseudo-class usvg never matches: the whole selector never does
            first_child = True
        elif piece[0] == "[":
            value = part.group(3) or ""
            attributes.append((part.group(1), part.group(2) or "", value.strip("\"'")))
        else:
            return None, position
        position = part.end()
    if position == start:
        return None, position
    return Compound(tag, tuple(ids), tuple(classes), tuple(attributes), first_child), position


def matches(rule: Rule, element: Element) -> bool:
    """Whether the rule's selector matches `element` (right to left, as simplecss)."""
    return _matches_from(rule, 0, element)


def _matches_from(rule: Rule, index: int, element: Element) -> bool:
    if not _compound_matches(rule.compounds[index], element):
        return False
    if index == len(rule.compounds) - 1:
        return True
    combinator = rule.combinators[index]
    if combinator == ">":
        parent = element.parent
        return parent is not None and _matches_from(rule, index + 1, parent)
    if combinator == "+":
        previous = element.previous
        return previous is not None and _matches_from(rule, index + 1, previous)
    ancestor = element.parent
    while ancestor is not None:
        if _matches_from(rule, index + 1, ancestor):
            return True
        ancestor = ancestor.parent
    return False


def _compound_matches(compound: Compound, element: Element) -> bool:
    if compound.tag is not None and compound.tag != element.name:
        return False
    raw = element.raw
    if any(raw.get("id") != wanted for wanted in compound.ids):
        return False
    if compound.classes:
        have = raw.get("class", "").split()
        if any(wanted not in have for wanted in compound.classes):
            return False
    if compound.first_child and element.previous is not None:
        return False
    return all(_attribute_matches(raw.get(name), operator, value) for name, operator, value in compound.attributes)


def _attribute_matches(actual: str | None, operator: str, value: str) -> bool:
    if actual is None:
        return False
    if operator == "=":
        return actual == value
    if operator == "~=":
        return value in actual.split()
    if operator == "|=":
        return actual == value or actual.startswith(value + "-")
    if operator == "^=":
        return actual.startswith(value)
    if operator == "$=":
        return actual.endswith(value)
    if operator == "*=":
        return value in actual
    return True
