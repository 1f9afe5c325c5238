"""The month's usage chart: valid SVG (parsed by an XML parser), accessible (title, description, text as text, no
style or script a strict page would block), and drawn (rendered by rsvg-convert, its marks found in the pixels)."""

from __future__ import annotations

import io
import subprocess
import xml.etree.ElementTree as ElementTree

import pytest
from PIL import Image

from fileapi.account.usage_chart import (
    BAR_FILL,
    BOTTOM,
    LEFT,
    QUOTA_STROKE,
    RIGHT,
    TOP,
    TOTAL_STROKE,
    _ticks,
    usage_chart_svg,
)
from fileapi.metering.usage import DayUsage, UsageReport
from tests.helpers import require_tool

SVG = "{http://www.w3.org/2000/svg}"
NOVEMBER = [120, 300, 0, 450, 380, 200, 90, 0, 0, 600, 520, 480, 410, 390, 0, 0, 700, 650, 620, 580, 500, 0, 0, 800]


def report(
    counts: list[int], *, quota: int = 10_000, period: str = "2026-11", resets: str = "2026-12-01"
) -> UsageReport:
    daily = tuple(DayUsage(f"{period}-{day:02d}", count) for day, count in enumerate(counts, start=1))
    used = sum(counts)
    return UsageReport("pro", quota, used, max(0, quota - used), f"{resets}T00:00:00.000Z", "active", daily)


def parsed(chart: str) -> ElementTree.Element:
    return ElementTree.fromstring(chart)


def texts(root: ElementTree.Element) -> list[str]:
    return [element.text or "" for element in root.iter(f"{SVG}text")]


def test_the_chart_is_an_svg_image_titled_and_described_in_words() -> None:
    root = parsed(usage_chart_svg(report(NOVEMBER)))
    assert root.tag == f"{SVG}svg"
    assert (root.get("role"), root.get("aria-labelledby")) == ("img", "usage-chart-title usage-chart-desc")
    assert (root.get("viewBox"), root.get("width"), root.get("height")) == ("0 0 720 360", "720", "360")
    title, desc = root.find(f"{SVG}title"), root.find(f"{SVG}desc")
    assert title is not None and desc is not None
    assert (title.get("id"), title.text) == ("usage-chart-title", "Requests in November 2026")
    assert desc.get("id") == "usage-chart-desc"
    assert desc.text == (
        "November 2026: 7,790 of the monthly quota of 10,000 requests used by 24 November 2026 (2,210 remaining). "
        "The most on one day: 800, on 24 November 2026. Bars: requests per day; line: the running total; dashed "
        "line: the quota. The count resets on 1 December 2026 at 00:00 UTC."
    )


def test_every_day_is_a_bar_with_its_own_title_and_the_figures_are_text() -> None:
    root = parsed(usage_chart_svg(report(NOVEMBER)))
    bars = [rect for rect in root.iter(f"{SVG}rect") if rect.find(f"{SVG}title") is not None]
    assert [bar.findtext(f"{SVG}title") for bar in bars[:2]] == ["1 November: 120 requests", "2 November: 300 requests"]
    assert len(bars) == 24 and float(bars[2].get("height", "-1")) == 0
    words = texts(root)
    assert words[0] == "November 2026: 7,790 of 10,000 requests (2,210 left)"
    assert [w for w in words if w.startswith(("quota", "November 2026 ("))] == [
        "quota 10,000",
        "November 2026 (UTC days)",
    ]
    assert [w for w in words if w.isdigit() and len(w) <= 2][-7:] == ["1", "5", "10", "15", "20", "25", "30"]
    assert {"0", "2k", "4k", "6k", "8k", "10k", "1.5k", "total", "per day"} <= set(words)


def test_the_chart_needs_no_style_script_or_other_file() -> None:
    chart = usage_chart_svg(report(NOVEMBER))
    root = parsed(chart)
    tags = {element.tag.removeprefix(SVG) for element in root.iter()}
    assert tags == {"svg", "title", "desc", "rect", "text", "line", "polyline"}
    assert not any("style" in element.attrib or "href" in " ".join(element.attrib) for element in root.iter())
    assert "<script" not in chart and "url(" not in chart


@pytest.mark.parametrize(
    ("counts", "quota", "period", "resets", "last_label"),
    [
        (NOVEMBER, 10_000, "2026-11", "2026-12-01", "30"),
        ([0], 10_000, "2026-12", "2027-01-01", "31"),  # the month's first request not made yet
        ([5, 3], 0, "2026-11", "2026-12-01", "30"),  # a quota of 0
        ([600, 700], 1_000, "2026-11", "2026-12-01", "30"),  # over a quota lowered by a plan change
        ([10**9] * 28, 10**12, "2027-02", "2027-03-01", "28"),  # a month of 28 days, large figures
    ],
)
def test_every_month_is_valid_and_drawn(
    counts: list[int], quota: int, period: str, resets: str, last_label: str
) -> None:
    chart = usage_chart_svg(report(counts, quota=quota, period=period, resets=resets))
    root = parsed(chart)
    assert [word for word in texts(root) if word.isdigit() and len(word) <= 2][-1] == last_label
    for element in root.iter():  # every coordinate is a number within the picture
        for name in ("x", "y", "x1", "x2", "y1", "y2", "width", "height"):
            if name in element.attrib:
                assert -1 <= float(element.attrib[name]) <= 721, (element.tag, name, element.attrib[name])
    picture = rendered(chart)
    assert picture.size == (720, 360)
    plot = picture.crop((LEFT, TOP, RIGHT, BOTTOM - 1))  # the legend shows each colour too: the plot area only
    colours = {colour for _, colour in plot.getcolors(720 * 360) or []}
    assert hex_rgb(QUOTA_STROKE) in colours
    assert (hex_rgb(BAR_FILL) in colours) == (hex_rgb(TOTAL_STROKE) in colours) == any(counts)  # 0: on the axis


def rendered(chart: str) -> Image.Image:
    """The chart drawn by rsvg-convert (librsvg), as RGB pixels."""
    tool = require_tool("rsvg-convert")
    png = subprocess.run([tool, "--format=png"], input=chart.encode(), capture_output=True, check=True).stdout
    return Image.open(io.BytesIO(png)).convert("RGB")


def hex_rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


@pytest.mark.parametrize(
    ("top", "ticks"),
    [(1, [0, 1]), (4, [0, 1, 2, 3, 4]), (7, [0, 2, 4, 6, 8]), (10_000, [0, 2000, 4000, 6000, 8000, 10_000])],
)
def test_axis_steps_are_round(top: int, ticks: list[int]) -> None:
    assert _ticks(top) == ticks
