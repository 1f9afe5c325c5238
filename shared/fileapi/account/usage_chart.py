"""This month's usage as an SVG chart, drawn on the server (GET /v1/usage/chart, the local portal page, the usage page).

Requests per day are bars (right axis); their running total is a line against the monthly quota's dashed line (left
axis); the month's days run along the bottom. Every figure is text in the SVG (a screen reader reads it, a search
finds it), with a `<title>` and a `<desc>` saying the month in words; each bar has a `<title>` of its own. Colours
and fonts are presentation attributes, never a `<style>` or a `style` attribute, so a page whose
Content-Security-Policy allows no inline style shows it as drawn; there is no script and nothing is fetched.
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape, quoteattr

from fileapi.metering.months import days_in_month
from fileapi.metering.usage import UsageReport

WIDTH, HEIGHT = 720, 360
LEFT, RIGHT, TOP, BOTTOM = 72, 648, 64, 296  # the plot area
BAR_FILL = "#9ecae1"
TOTAL_STROKE = "#08519c"
QUOTA_STROKE = "#cb181d"
GRID_STROKE = "#e5e5e5"
INK = "#333333"
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
TITLE_ID = "usage-chart-title"
DESC_ID = "usage-chart-desc"


def usage_chart_svg(report: UsageReport) -> str:
    """The month of `report` as an SVG document (720 x 360 user units, scalable): bars per day, running total,
    quota, axes and their labels, a title and a description."""
    period = report.period
    year, month = int(period[:4]), int(period[5:])
    days = days_in_month(period)
    counts = [day.requests for day in report.daily]
    running = [sum(counts[: index + 1]) for index in range(len(counts))]
    total_ticks = _ticks(max(report.quota_monthly, report.used_this_month, 1))
    day_ticks = _ticks(math.ceil(max(counts, default=0) * 5 / 3) or 1)  # the bars keep to the lower 3/5
    slot = (RIGHT - LEFT) / days

    def x(day: float) -> float:  # the left edge of day `day`'s slot (day 1: LEFT)
        return LEFT + (day - 1) * slot

    def y_total(value: int) -> float:
        return BOTTOM - (BOTTOM - TOP) * value / total_ticks[-1]

    def y_day(value: int) -> float:
        return BOTTOM - (BOTTOM - TOP) * value / day_ticks[-1]

    month_name = f"{MONTHS[month - 1]} {year}"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" '
        f'role="img" aria-labelledby="{TITLE_ID} {DESC_ID}" font-family="system-ui, sans-serif" font-size="12" '
        f'fill="{INK}">',
        f'<title id="{TITLE_ID}">{escape(f"Requests in {month_name}")}</title>',
        f'<desc id="{DESC_ID}">{escape(_description(report, month_name))}</desc>',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
        _text(LEFT, 28, _headline(report, month_name), size=16, weight="600"),
    ]
    for tick in total_ticks:  # the left axis: the month's running total and the quota
        parts.append(_line(LEFT, y_total(tick), RIGHT, y_total(tick), GRID_STROKE))
        parts.append(_text(LEFT - 8, y_total(tick) + 4, _short(tick), anchor="end"))
    for tick in day_ticks:  # the right axis: requests per day
        parts.append(_text(RIGHT + 8, y_day(tick) + 4, _short(tick)))
    parts.append(_text(LEFT - 8, TOP - 12, "total", anchor="end"))
    parts.append(_text(RIGHT + 8, TOP - 12, "per day"))
    for index, count in enumerate(counts):
        date = f"{index + 1} {MONTHS[month - 1]}"
        width = slot * 0.7
        parts.append(
            f'<rect x="{_n(x(index + 1) + (slot - width) / 2)}" y="{_n(y_day(count))}" width="{_n(width)}" '
            f'height="{_n(BOTTOM - y_day(count))}" fill="{BAR_FILL}"><title>{escape(f"{date}: {count:,} requests")}'
            f"</title></rect>"
        )
    points = [(x(1), y_total(0)), *((x(index + 2), y_total(value)) for index, value in enumerate(running))]
    parts.append(
        f'<polyline points="{" ".join(f"{_n(px)},{_n(py)}" for px, py in points)}" fill="none" '
        f'stroke="{TOTAL_STROKE}" stroke-width="2.5" stroke-linejoin="round"/>'
    )
    quota_y = y_total(report.quota_monthly)
    parts.append(_line(LEFT, quota_y, RIGHT, quota_y, QUOTA_STROKE, width=2, dashes="6 4"))
    quota_label = f"quota {_figure(report.quota_monthly)}"
    parts.append(_text(RIGHT - 4, quota_y - 6, quota_label, anchor="end", fill=QUOTA_STROKE))
    parts.append(_line(LEFT, BOTTOM, RIGHT, BOTTOM, INK))
    for day in sorted({1, *range(5, days + 1, 5), days}):
        parts.append(_text(x(day) + slot / 2, BOTTOM + 16, str(day), anchor="middle"))
    parts.append(_text((LEFT + RIGHT) / 2, BOTTOM + 34, month_name + " (UTC days)", anchor="middle"))
    parts += _legend(BOTTOM + 52)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _headline(report: UsageReport, month_name: str) -> str:
    """The line above the chart (figures of 8 digits or more shortened, so that it fits; `desc` has them whole)."""
    used, quota, left = (_figure(value) for value in (report.used_this_month, report.quota_monthly, report.remaining))
    return f"{month_name}: {used} of {quota} requests ({left} left)"


def _description(report: UsageReport, month_name: str) -> str:
    """The chart in words: the month's figures, its busiest day, and what the marks are."""
    last = report.daily[-1]
    busiest = max(report.daily, key=lambda day: day.requests)
    resets = report.resets_at[:10]
    busiest_words = (
        f"The most on one day: {busiest.requests:,}, on {_day_words(busiest.date)}. "
        if busiest.requests
        else "No request counted yet. "
    )
    return (
        f"{month_name}: {report.used_this_month:,} of the monthly quota of {report.quota_monthly:,} requests used by "
        f"{_day_words(last.date)} ({report.remaining:,} remaining). {busiest_words}"
        f"Bars: requests per day; line: the running total; dashed line: the quota. "
        f"The count resets on {_day_words(resets)} at 00:00 UTC."
    )


def _day_words(date: str) -> str:
    """'2026-11-03' as '3 November 2026'."""
    return f"{int(date[8:10])} {MONTHS[int(date[5:7]) - 1]} {date[:4]}"


def _legend(baseline: float) -> list[str]:
    return [
        f'<rect x="{LEFT}" y="{baseline - 9}" width="14" height="10" fill="{BAR_FILL}"/>',
        _text(LEFT + 20, baseline, "requests per day"),
        _line(LEFT + 150, baseline - 4, LEFT + 174, baseline - 4, TOTAL_STROKE, width=2.5),
        _text(LEFT + 180, baseline, "running total"),
        _line(LEFT + 290, baseline - 4, LEFT + 314, baseline - 4, QUOTA_STROKE, width=2, dashes="6 4"),
        _text(LEFT + 320, baseline, "monthly quota"),
    ]


def _ticks(top: int) -> list[int]:
    """0 and at most 5 more even steps (1, 2 or 5 times a power of ten) up to the first at or above `top` (>= 1)."""
    magnitude = 1
    while True:
        for factor in (1, 2, 5):
            step = factor * magnitude
            if math.ceil(top / step) <= 5:
                return [step * index for index in range(math.ceil(top / step) + 1)]
        magnitude *= 10


def _figure(value: int) -> str:
    """A figure in a line of text: whole up to 7 digits (9,999,999), shortened beyond (28B)."""
    return f"{value:,}" if value < 10**7 else _short(value)


def _short(value: int) -> str:
    """An axis figure: 950, 1.5k, 2.5M, 1,000B."""
    for size, suffix in ((10**9, "B"), (10**6, "M"), (10**3, "k")):
        if value >= size:
            return f"{value / size:,.4g}{suffix}"
    return str(value)


def _n(value: float) -> str:
    """A coordinate, to a tenth of a unit."""
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _line(x1: float, y1: float, x2: float, y2: float, stroke: str, *, width: float = 1, dashes: str = "") -> str:
    dash = f' stroke-dasharray="{dashes}"' if dashes else ""
    return (
        f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" stroke="{stroke}" '
        f'stroke-width="{width}"{dash}/>'
    )


def _text(
    x: float, y: float, words: str, *, anchor: str = "start", size: int = 12, weight: str = "400", fill: str = INK
) -> str:
    return (
        f'<text x="{_n(x)}" y="{_n(y)}" text-anchor="{anchor}" font-size="{size}" font-weight="{weight}" '
        f"fill={quoteattr(fill)}>{escape(words)}</text>"
    )
