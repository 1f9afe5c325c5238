"""The catalogue of hostile inputs, each sent through the whole API in one process.

Each entry is a generator with its route, query, expected answer and why it is hostile: pixel and
decompression bombs, parser bombs, SVG nesting just under and just over the renderer's limit (for
every construct it recurses into), filter primitives with extreme parameters, layers, text, use
fan-out, embedded images, and inputs that expand (zip-like) or cost super-linear time in every text
format. The builders are in tests/hostile_files.py, hostile_svg.py and hostile_text.py.

    python -m tests.bombs [NAME ...]   # one JSON line per bomb: status, code, seconds, peak RSS
    python -m tests.bombs --baseline   # the peak RSS of the same process without a bomb

The bombs test runs them all in a child process and checks every answer and the peak memory;
`make bench` runs each in a fresh process and reports its time and memory.
"""

from __future__ import annotations

import gzip
import json
import resource
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from fileapi.convert.svg_tree import MAX_NESTING
from tests import hostile_svg as svg
from tests import hostile_text as text
from tests.hostile_files import (
    billion_laughs_svg,
    cyclic_page_tree_pdf,
    deep_svg,
    exif_with_make,
    flate_bomb_pdf,
    gif_claiming_65535,
    gif_of_frames,
    huge_xref_pdf,
    jpeg_claiming_65535,
    jpeg_of_scans,
    many_objects_pdf,
    pdf_of_pages,
    png_claiming,
    png_of_zeros,
    self_drawing_form_pdf,
    shared_page_tree_pdf,
    striped_image,
    webp_claiming,
    xobject_fanout_pdf,
)

if TYPE_CHECKING:
    from fastapi.testclient import TestClient

JSON = "application/json"
SVG = "image/svg+xml"
MARKDOWN = "text/markdown"
CSV = "text/csv"
PROJECT_ROOT = Path(__file__).resolve().parent.parent
OK: tuple[int, str | None] = (200, None)
TOO_LARGE: tuple[int, str | None] = (413, "too_large")
INVALID: tuple[int, str | None] = (400, "invalid_input")
RENDER = "/v1/render/svg-to-png"
LINKS = (MAX_NESTING - 3) // 2  # two levels a link, plus the root, the first reference and the innermost shape


@dataclass(frozen=True)
class Bomb:
    name: str
    path: str
    build: Callable[[], bytes]
    expected: tuple[int, str | None]  # status and error code (None: a 200)
    why: str = ""
    content_type: str = "application/octet-stream"
    params: dict[str, str] = field(default_factory=dict)


def _svg(name: str, build: Callable[[], bytes], expected: tuple[int, str | None], why: str) -> Bomb:
    return Bomb(f"svg {name}", RENDER, build, expected, why, SVG)


def _chain(name: str, build: Callable[[int], bytes], why: str) -> list[Bomb]:
    """A chain of references at the deepest the prediction admits, and one link deeper."""
    return [
        _svg(f"{LINKS} {name} (at the limit)", lambda: build(LINKS), OK, why),
        _svg(f"{LINKS + 1} {name}", lambda: build(LINKS + 1), TOO_LARGE, why),
    ]


def _filter(name: str, primitives: str, side: int, expected: tuple[int, str | None], why: str) -> Bomb:
    return _svg(f"{name}, {side}x{side}", lambda: svg.filtered(primitives, side), expected, why)


IMAGES = [
    Bomb("png 100000x100000", "/v1/image/convert", lambda: png_claiming(100_000, 100_000), TOO_LARGE,
         "a 100-byte header claiming 10 gigapixels", params={"to": "webp"}),
    Bomb("jpeg 65535x65535", "/v1/image/resize", jpeg_claiming_65535, TOO_LARGE, "a frame header claiming 4 GP",
         params={"width": "100"}),
    Bomb("progressive jpeg of 7000x7000 in 50000 scans", "/v1/image/resize", lambda: jpeg_of_scans(7000, 50_000),
         TOO_LARGE, "0.5 MB that ran to the 20 s deadline", params={"width": "100"}),
    Bomb("progressive jpeg of 1000x1000 in 10000 scans", "/v1/image/convert", lambda: jpeg_of_scans(1000, 10_000),
         TOO_LARGE, "6 s of scans predicted, over the 5 s budget", params={"to": "png"}),
    Bomb("progressive jpeg of 1000x1000 in 1000 scans", "/v1/image/convert", lambda: jpeg_of_scans(1000, 1000),
         OK, "0.6 s of scans, within the budget", params={"to": "png"}),
    Bomb("gif 65535x65535", "/v1/image/convert", gif_claiming_65535, TOO_LARGE, "a screen claiming 4 GP",
         params={"to": "png"}),
    Bomb("webp 100000x100000", "/v1/image/compress", lambda: webp_claiming(100_000, 100_000), TOO_LARGE,
         "a VP8X canvas larger than its frame", params={"quality": "50"}),
    Bomb("png 100000x100000 to qr/read", "/v1/qr/read", lambda: png_claiming(100_000, 100_000), TOO_LARGE,
         "the code readers check pixels too"),
    Bomb("png 100000x100000 to favicon-set", "/v1/image/favicon-set", lambda: png_claiming(100_000, 100_000),
         TOO_LARGE, "as does favicon-set"),
    Bomb("png of 1x16000 to favicon-set", "/v1/image/favicon-set", lambda: png_of_zeros(1, 16_000), OK,
         "was a 16000x16000 square first: +1.6 GiB, 11.6 s"),
    Bomb("png of 1x60000 to favicon-set", "/v1/image/favicon-set", lambda: png_of_zeros(1, 60_000), OK,
         "was the 2 GiB worker limit; scaled to 1x512 before squaring"),
    Bomb("png of 7000x7000 (49 MP) to favicon-set", "/v1/image/favicon-set", lambda: png_of_zeros(7000, 7000), OK,
         "just under the 50 MP input limit"),
    Bomb("png of 7072x7072 (50.01 MP) to favicon-set", "/v1/image/favicon-set", lambda: png_of_zeros(7072, 7072),
         TOO_LARGE, "just over it"),
    Bomb("png of 144 MP (420 KB) to resize", "/v1/image/resize", lambda: png_of_zeros(12_000, 12_000), TOO_LARGE,
         "real pixel data 1,000x the file, refused from the header", params={"width": "100"}),
    Bomb("animated gif of 3000 frames of 1000x1000", "/v1/image/convert", lambda: gif_of_frames(3000, 1000), TOO_LARGE,
         "frames x pixels count together, read from frame headers", params={"to": "webp"}),
    Bomb("read-metadata of a 144 MP png", "/v1/image/read-metadata",
         lambda: png_of_zeros(12_000, 12_000, exif=exif_with_make("Hostile")), OK,
         "headers only: was a 573 MB decode to reach an eXIf chunk after the pixels"),
    Bomb("read-metadata of a png whose pixel data is garbage", "/v1/image/read-metadata",
         lambda: png_of_zeros(4000, 4000, idat=b"not zlib" * 100), OK, "proves the pixels are not decoded"),
    Bomb("strip-metadata of a 144 MP png", "/v1/image/strip-metadata",
         lambda: png_of_zeros(12_000, 12_000, exif=exif_with_make("Hostile")), OK, "chunks copied, never decoded"),
    Bomb("detect of a 144 MP png", "/v1/file/detect", lambda: png_of_zeros(12_000, 12_000), OK, "magic bytes only"),
    Bomb("qr/read of 50 megapixels", "/v1/qr/read", lambda: striped_image(7071), INVALID,
         "every search pass runs on the largest admitted image"),
    Bomb("barcode/read of 50 megapixels", "/v1/barcode/read", lambda: striped_image(7071), OK,
         "every search pass runs on the largest admitted image"),
]  # fmt: skip
PDFS = [
    Bomb("pdf flate 2 GiB (extract-text)", "/v1/pdf/extract-text", lambda: flate_bomb_pdf(2048), TOO_LARGE,
         "a content stream inflating 1000x"),
    Bomb("pdf flate 2 GiB (render-page)", "/v1/pdf/render-page", lambda: flate_bomb_pdf(2048), TOO_LARGE,
         "a content stream inflating 1000x"),
    Bomb("pdf flate 2 GiB (compress)", "/v1/pdf/compress", lambda: flate_bomb_pdf(2048), OK,
         "qpdf copies the stream without inflating it"),
    *(
        Bomb(f"pdf form XObjects drawn 10^{levels} times ({route})", f"/v1/pdf/{route}",
             partial(xobject_fanout_pdf, levels, 10), expected, why)
        for route in ("render-page", "extract-text")
        for levels, expected, why in (
            (5, OK, "forms ten deep five times: 170 MiB in pdfium"),
            (6, TOO_LARGE, "predicted 2.2 GiB, counted once per object"),
            (8, TOO_LARGE, "2 KB drawing 10^8 times: was 6-7 s to the 2 GiB worker limit"),
        )
    ),
    Bomb("pdf tiling patterns filled 10^4 times", "/v1/pdf/render-page",
         lambda: xobject_fanout_pdf(4, 10, pattern=True), OK, "0.25 s of pattern fills"),
    Bomb("pdf tiling patterns filled 10^6 times", "/v1/pdf/render-page",
         lambda: xobject_fanout_pdf(6, 10, pattern=True), TOO_LARGE, "23 s of pattern fills predicted"),
    Bomb("pdf form XObject drawing itself", "/v1/pdf/render-page", self_drawing_form_pdf, TOO_LARGE,
         "pdfium follows the loop: no answer in 60 s"),
    Bomb("pdf cyclic page tree", "/v1/pdf/info", cyclic_page_tree_pdf, INVALID, "/Kids pointing at its own node"),
    Bomb("pdf one page listed 3 million times", "/v1/pdf/info", lambda: shared_page_tree_pdf(3_000_000), INVALID,
         "26 KB of /Kids naming one page"),
    Bomb("pdf 400,000 objects", "/v1/pdf/split", lambda: many_objects_pdf(400_000), OK, "an object stream",
         params={"ranges": "1"}),
    Bomb("pdf xref claiming 10 million objects", "/v1/pdf/rotate", lambda: huge_xref_pdf(10_000_000), OK,
         "a compressed cross-reference stream", params={"degrees": "90"}),
    Bomb("pdf split, 30 ranges of all 2000 pages", "/v1/pdf/split", lambda: pdf_of_pages(2000), TOO_LARGE,
         "60,000 pages to copy (was 20 s)", params={"ranges": ",".join(["1-2000"] * 30)}),
    Bomb("pdf split, 40 pages sharing a 500 KB stream, one part each", "/v1/pdf/split",
         lambda: pdf_of_pages(40, shared_bytes=500_000), TOO_LARGE, "every part carries its own copy",
         params={"ranges": ",".join(str(page) for page in range(1, 41))}),
    Bomb("merge with 10000 parts", "/v1/pdf/merge",
         lambda: b"".join(b'--B\r\nContent-Disposition: form-data; name="files"; filename="f"\r\n\r\nx\r\n'
                          for _ in range(10_000)) + b"--B--\r\n",
         INVALID, "ten thousand tiny parts", content_type="multipart/form-data; boundary=B"),
]  # fmt: skip
SVGS = [
    _svg("billion laughs", billion_laughs_svg, INVALID, "entity expansion, stopped by expat"),
    _svg("10000-deep nesting", lambda: deep_svg(10_000), TOO_LARGE, "refused while reading"),
    _svg("svgz inflating to 20 MB",
         lambda: gzip.compress(b"<svg xmlns='http://www.w3.org/2000/svg'>" + b" " * (20 << 20) + b"</svg>"), TOO_LARGE,
         "gzip bomb"),
    _svg(f"{MAX_NESTING - 2} nested <g> (at the limit)", lambda: svg.wrapped("g", MAX_NESTING - 2), OK,
         "half of the 250 that overflow resvg's stack"),
    _svg(f"{MAX_NESTING - 1} nested <g>", lambda: svg.wrapped("g", MAX_NESTING - 1), TOO_LARGE,
         "one level over the limit"),
    _svg(f"{MAX_NESTING - 2} nested <a> (at the limit)", lambda: svg.wrapped("a", MAX_NESTING - 2), OK,
         "crashes at 250 like <g>"),
    _svg(f"{MAX_NESTING - 2} nested <tspan> (at the limit)", lambda: svg.nested_text(MAX_NESTING - 2), OK,
         "counted although resvg flattens text"),
    *_chain("<use> -> <g> links", svg.use_chain, "crashes at 125 links"),
    *_chain("<use> -> <symbol> links", svg.symbol_chain, "crashes at 124 links"),
    *_chain("chained markers", svg.marker_chain, "crashes at 124 markers"),
    *_chain("chained pattern fills", svg.pattern_chain, "crashes at 247 patterns"),
    *_chain("chained masks", svg.mask_chain, "crashes at 247 masks"),
    *_chain("chained clip paths", svg.clip_chain, "never crashed, counted all the same"),
    *_chain("chained feImage filters", svg.feimage_chain, "references through filters"),
    _filter("feTurbulence of 70,000 octaves", '<feTurbulence baseFrequency="0.05" numOctaves="70000"/>', 50, TOO_LARGE,
         "a 50 s freeze holding the GIL"),
    _filter("feTurbulence of 200 octaves", '<feTurbulence baseFrequency="0.05" numOctaves="200"/>', 50, OK,
         "the same, affordable"),
    _filter("feTurbulence of 1e9 octaves", '<feTurbulence numOctaves="1e9"/>', 10, TOO_LARGE,
         "usvg rounds it to a u32"),
    _filter("feMorphology radius 50", '<feMorphology radius="50"/>', 1000, TOO_LARGE,
         "a 100x100 window per pixel: 25 s"),
    _filter("feMorphology radius 1e9", '<feMorphology radius="1e9"/>', 1000, TOO_LARGE,
         "the window is the whole region"),
    _filter("feConvolveMatrix of order 300",
         '<feConvolveMatrix order="300" kernelMatrix="' + " ".join(["1"] * 90_000) + '"/>', 1000, TOO_LARGE,
         "90,000 kernel cells per pixel"),
    _filter("feConvolveMatrix of order 1000 without its kernel", '<feConvolveMatrix order="1000"/>', 1000, OK,
         "usvg draws nothing for a wrong kernel"),
    _filter("feMerge of 500 nodes", "<feMerge>" + "<feMergeNode/>" * 500 + "</feMerge>", 1000, TOO_LARGE,
         "a composite per node"),
    _filter("30 chained feOffset", '<feOffset dx="1"/>' * 30, 1000, OK, "30 region buffers, 1.4 s"),
    _filter("1000 chained feOffset", '<feOffset dx="1"/>' * 1000, 1000, TOO_LARGE,
         "every result kept: 1000 region buffers"),
    _filter("feGaussianBlur of deviation 1e9", '<feGaussianBlur stdDeviation="1e9"/>', 1000, OK,
         "the box blur costs the same at any radius"),
    _filter("feDropShadow far away", '<feDropShadow dx="1e9" dy="1e9" stdDeviation="1e9"/>', 1000, OK,
         "constant work per pixel"),
    _filter("feDisplacementMap of scale 1e9", '<feDisplacementMap in2="SourceGraphic" scale="1e9"/>', 1000, OK,
         "constant work per pixel"),
    _filter("feSpecularLighting with extreme terms",
         '<feSpecularLighting surfaceScale="1e9" specularExponent="128" kernelUnitLength="1e-9">'
         '<feSpotLight x="1e9" y="-1e9" z="1e9" specularExponent="1e9"/></feSpecularLighting>',
         1000, OK, "constant work per pixel"),
    _filter("feComponentTransfer of a 100,000-entry table",
         '<feComponentTransfer><feFuncR type="table" tableValues="' + "0 1 " * 50_000 + '"/></feComponentTransfer>',
         1000, OK, "a lookup per pixel"),
    _filter("feTile of a 1 px tile", '<feFlood width="1" height="1"/><feTile/>', 1000, OK, "one pattern fill"),
    _svg("blur 50 on 8000x6000", lambda: svg.blur_page(50, 8000, 6000), TOO_LARGE, "a 46.8 s freeze"),
    _svg("filter region 200x a 7000x7000 box",
         lambda: svg.filtered('<feOffset dx="1"/>', 7000, region='x="-100" y="-100" width="200" height="200"'),
         TOO_LARGE, "14 GB and growing; resvg keeps 25 canvases of it"),
    _svg("blurred rect drawn 4096 times by <use>", lambda: svg.filter_fanout(12, 200), TOO_LARGE,
         "filters multiplied by fan-out"),
    _svg("1000 full-canvas opacity layers", lambda: svg.opacity_layers(1000, 1000), TOO_LARGE, "46 ms a layer"),
    _svg("20 nested layers round huge content", lambda: svg.nested_layers(20), TOO_LARGE,
         "25 canvases a layer, all alive at once"),
    _svg("10000 tspans in one run", lambda: svg.tspans(10_000), TOO_LARGE, "layout time grows as the square"),
    _svg("150000 characters in one run", lambda: svg.long_text(150_000), TOO_LARGE, "as does a long run"),
    _svg("20000 hairline curves", lambda: svg.hairline_curves(20_000), TOO_LARGE, "550 ns per pixel of length"),
    _svg("4000 markers of 300x300", lambda: svg.markers(4000, 300), TOO_LARGE, "a clipped layer per vertex"),
    _svg("2^30 <use> copies", lambda: svg.use_fanout(30), TOO_LARGE, "exponential fan-out, counted not followed"),
    _svg("2^8 <use> copies", lambda: svg.use_fanout(8), OK, "modest fan-out"),
    _svg("pattern tile of 20000x20000", lambda: svg.pattern_tile(20_000), TOO_LARGE, "a 1.6 GB tile pixmap"),
    _svg("embedded png claiming 144 MP", lambda: svg.embedded_image(png_claiming(12_000, 12_000)), TOO_LARGE,
         "was 960 MiB: the 50 MP limit now sees embedded images"),
    _svg("embedded 4000x4000 png drawn 600 times", lambda: svg.embedded_image(png_of_zeros(4000, 4000), copies=600),
         TOO_LARGE, "decoded at every draw"),
    _svg("svg image inflating to 20 MB", lambda: svg.inflating_svg_image(20), TOO_LARGE,
         "a gzip bomb inside a data: URI"),
    _svg("2000 style rules x 20000 elements", lambda: svg.style_rules(2000, 20_000), TOO_LARGE,
         "every selector tested against every element"),
]  # fmt: skip
TEXTS = [
    Bomb("markdown 100000 nested quotes", "/v1/text/markdown-to-html", lambda: b">" * 100_000 + b" x", OK,
         "27 bytes of HTML per byte, within the response", MARKDOWN),
    Bomb("markdown 50000 nested emphasis and links", "/v1/text/markdown-to-html",
         lambda: b"*[" * 50_000 + b"x" + b"](u)*" * 50_000, OK, "deep inline nesting", MARKDOWN),
    Bomb("markdown 4 MB of nested emphasis and links", "/v1/text/markdown-to-html",
         lambda: b"*[" * 570_000 + b"x" + b"](u)*" * 570_000, TOO_LARGE, "over the input limit", MARKDOWN),
    Bomb("markdown table of 1000 columns and 10000 rows", "/v1/text/markdown-to-html",
         lambda: text.markdown_table(1000, 10_000), TOO_LARGE, "24 KB padded to 100 MB (1.88 GB peak)", MARKDOWN),
    Bomb("markdown table of 100 columns and 500 rows", "/v1/text/markdown-to-html",
         lambda: text.markdown_table(100, 500), OK, "the same, within the response", MARKDOWN),
    Bomb("markdown 500000 emphases", "/v1/text/markdown-to-html", lambda: text.markdown_emphasis(500_000), TOO_LARGE,
         "545 MB of tree for 2 MB of text", MARKDOWN),
    Bomb("markdown reference of 100 KB used 30000 times", "/v1/text/markdown-to-html",
         lambda: text.markdown_references(30_000, 100_000), OK, "comrak caps expansion at the input's size", MARKDOWN),
    Bomb("csv of 2000 columns and 20000 one-cell rows", "/v1/data/csv-to-json",
         lambda: text.csv_wide_short_rows(2000, 20_000), TOO_LARGE, "50 KB to 418 MB of JSON", CSV),
    Bomb("csv header of one name 20000 times", "/v1/data/csv-to-json", lambda: text.csv_repeated_names(20_000), OK,
         "was 71 s of quadratic suffixing", CSV),
    Bomb("csv of 300000 rows of empty fields, no header", "/v1/data/csv-to-json",
         lambda: text.csv_empty_fields(300_000, 10), TOO_LARGE, "each , becomes 3 bytes", CSV,
         params={"header": "false"}),
    Bomb("json 200 arrays 1000 deep at indent 8 (format)", "/v1/data/json-format",
         lambda: text.json_nested_arrays(200, 1000), TOO_LARGE, "400 KB to 1.6 GB", JSON, params={"indent": "8"}),
    Bomb("json 20000 objects of disjoint keys (json-to-csv)", "/v1/data/json-to-csv",
         lambda: text.json_disjoint_objects(20_000), TOO_LARGE, "249 KB to 400 MB of empty cells", JSON),
    Bomb("json 100000 nested arrays (format)", "/v1/data/json-format", lambda: b"[" * 100_000 + b"]" * 100_000,
         INVALID, "past the parser's nesting limit", JSON),
    Bomb("json 100000 nested arrays (json-to-csv)", "/v1/data/json-to-csv", lambda: b"[" * 100_000 + b"]" * 100_000,
         INVALID, "past the parser's nesting limit", JSON),
    Bomb("json 100000 nested arrays (text/diff)", "/v1/text/diff",
         lambda: b'{"a": "x", "b": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", INVALID,
         "past the parser's nesting limit", JSON),
    Bomb("diff of 20000 lines changed one in two", "/v1/text/diff", lambda: text.diff_every_other_line(20_000), OK,
         "was 13.6 s of quadratic matching", JSON),
    Bomb("diff of 2 x 20000 lines, none in common", "/v1/text/diff", lambda: text.diff_unrelated(20_000), OK,
         "was 9.7 s: a range without anchors cut again and again", JSON),
    Bomb("diff of 500000 one-byte lines all changed", "/v1/text/diff", lambda: text.diff_all_lines(500_000), TOO_LARGE,
         "each line shown twice: 35 MB", JSON),
    Bomb("csv field claiming 100 MB (unterminated quote, 4 MB sent)", "/v1/data/csv-to-json",
         lambda: b'a,b\n1,"' + b"x" * 4_000_000, INVALID, "a quote never closed", CSV),
    Bomb("url-encode of 1.5 million 2-byte characters", "/v1/data/url-encode",
         lambda: text.text_to_percent_encode(1_500_000), TOO_LARGE, "3x: 3 MB to 9 MB", "text/plain"),
    Bomb("base64-encode of 4.4 MB", "/v1/data/base64-encode", lambda: b"\xff" * 4_400_000, OK,
         "4/3 of the body fits the response", "application/octet-stream"),
]  # fmt: skip
BOMBS: list[Bomb] = [*IMAGES, *PDFS, *SVGS, *TEXTS]


@dataclass(frozen=True)
class Outcome:
    name: str
    status: int
    code: str | None
    seconds: float
    peak_rss_mib: float
    body_bytes: int


def peak_rss_mib() -> float:
    """The peak resident memory of this process plus its largest conversion worker's (a conversion's memory is
    its worker's): VmHWM of each (ru_maxrss keeps the high-water mark of the process that forked a child), and
    for a worker already replaced, the kernel's high-water mark of reaped children."""
    from fileapi.services import get_workers

    workers = [_high_water_mib(pid) for pid in get_workers().pids()]
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return _high_water_mib("self") + max([reaped, *workers])


def reset_high_water() -> None:
    """Start this process's high-water mark again from its resident memory now (Linux: clear_refs 5), so that what
    a bomb's builder allocated (a 50 MP canvas for a 1.6 MB PNG) is not counted as the API's."""
    Path("/proc/self/clear_refs").write_text("5")


def _high_water_mib(pid: int | str) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


@contextmanager
def served() -> Iterator[tuple[TestClient, str]]:
    """The composed local API (metering in moto's in-process mock) after start-up, one request and one small
    conversion, and a key. The conversion waits for a worker to import its libraries (56 MiB, which its first job
    would otherwise count as the bomb's)."""
    from fastapi.testclient import TestClient

    from fileapi.local.server import create_local_app
    from fileapi.telemetry import logger
    from tests.helpers import in_memory_metering

    logger.setLevel("WARNING")
    with (
        in_memory_metering("bombs@example.com") as key,
        TestClient(create_local_app(), raise_server_exceptions=False) as api,
    ):
        api.get("/health")
        warm_up = api.post(
            "/v1/image/convert",
            params={"to": "png"},
            content=png_of_zeros(1, 1),
            headers={"Authorization": f"Bearer {key}", "Content-Type": "image/png"},
        )
        assert warm_up.status_code == 200, warm_up.text
        yield api, key


def baseline_rss_mib() -> float:
    """`peak_rss_mib` of the served API with no bomb sent, its workers alive, as each bomb's is measured."""
    with served():
        reset_high_water()
        return peak_rss_mib()


def run(names: list[str] | None = None) -> list[Outcome]:
    """Send each bomb through the composed local API (metering in moto's in-process mock)."""
    chosen = [bomb for bomb in BOMBS if names is None or bomb.name in names]
    outcomes = []
    with served() as (api, key):
        for bomb in chosen:
            body = bomb.build()
            reset_high_water()
            headers = {"Authorization": f"Bearer {key}", "Content-Type": bomb.content_type}
            started = time.perf_counter()
            response = api.post(bomb.path, params=bomb.params, content=body, headers=headers)
            seconds = time.perf_counter() - started
            code = response.json().get("error") if response.status_code >= 400 else None
            outcomes.append(Outcome(bomb.name, response.status_code, code, seconds, peak_rss_mib(), len(body)))
    return outcomes


if __name__ == "__main__":
    if sys.argv[1:] == ["--baseline"]:  # the process served as for the bombs, no bomb
        print(json.dumps({"peak_rss_mib": baseline_rss_mib()}))
    else:
        for outcome in run(sys.argv[1:] or None):
            print(json.dumps(outcome.__dict__), flush=True)
