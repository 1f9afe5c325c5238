"""Rectangles in PDF user space, the matrices that move them, and an index of a page's redaction areas."""

from __future__ import annotations

from dataclasses import dataclass

# A PDF matrix [a b c d e f]: a point (x, y) goes to (a x + c y + e, b x + d y + f).
Matrix = tuple[float, float, float, float, float, float]
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
_BANDS = 64  # horizontal bands of the index: a point is tested against the areas of its band only


def multiply(first: Matrix, then: Matrix) -> Matrix:
    """The matrix applying `first`, then `then` (PDF: first x then)."""
    a, b, c, d, e, f = first
    p, q, r, s, t, u = then
    return (a * p + b * r, a * q + b * s, c * p + d * r, c * q + d * s, e * p + f * r + t, e * q + f * s + u)


def apply(matrix: Matrix, x: float, y: float) -> tuple[float, float]:
    a, b, c, d, e, f = matrix
    return a * x + c * y + e, b * x + d * y + f


def invert(matrix: Matrix) -> Matrix | None:
    a, b, c, d, e, f = matrix
    determinant = a * d - b * c
    if abs(determinant) < 1e-12:
        return None
    return (d / determinant, -b / determinant, -c / determinant, a / determinant,
            (c * f - d * e) / determinant, (b * e - a * f) / determinant)  # fmt: skip


@dataclass(frozen=True)
class Rect:
    """x0 <= x1, y0 <= y1, in PDF points."""

    x0: float
    y0: float
    x1: float
    y1: float

    def contains(self, x: float, y: float) -> bool:
        return self.x0 <= x <= self.x1 and self.y0 <= y <= self.y1

    def intersects(self, other: Rect) -> bool:
        return self.x0 < other.x1 and other.x0 < self.x1 and self.y0 < other.y1 and other.y0 < self.y1

    def transformed(self, matrix: Matrix) -> Rect:
        """The bounding box of this rectangle moved by `matrix`."""
        corners = [apply(matrix, x, y) for x in (self.x0, self.x1) for y in (self.y0, self.y1)]
        xs, ys = [x for x, _ in corners], [y for _, y in corners]
        return Rect(min(xs), min(ys), max(xs), max(ys))

    def union(self, other: Rect) -> Rect:
        return Rect(min(self.x0, other.x0), min(self.y0, other.y0), max(self.x1, other.x1), max(self.y1, other.y1))


UNIT_SQUARE = Rect(0.0, 0.0, 1.0, 1.0)


class AreaIndex:
    """A page's areas, for `covers` (a point) and `touches` (a rectangle) tests of many glyphs."""

    def __init__(self, areas: list[Rect]) -> None:
        self.areas = areas
        self.bottom = min((area.y0 for area in areas), default=0.0)
        top = max((area.y1 for area in areas), default=1.0)
        self.band_height = max((top - self.bottom) / _BANDS, 1e-6)
        self.bands: list[list[Rect]] = [[] for _ in range(_BANDS)]
        for area in areas:
            for band in range(self._band(area.y0), self._band(area.y1) + 1):
                self.bands[band].append(area)

    def _band(self, y: float) -> int:
        return min(_BANDS - 1, max(0, int((y - self.bottom) / self.band_height)))

    def covers(self, x: float, y: float) -> bool:
        return any(area.contains(x, y) for area in self.bands[self._band(y)])

    def touches(self, rect: Rect) -> bool:
        return any(area.intersects(rect) for area in self.areas)

    def within(self, rect: Rect) -> list[Rect]:
        """The areas that overlap `rect`."""
        return [area for area in self.areas if area.intersects(rect)]
