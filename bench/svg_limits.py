"""Where resvg breaks and what it spends: the measurements behind svg_tree.MAX_NESTING and svg_rates.

    python -m bench.svg_limits depths   # per nesting construct: the deepest that renders, the first that crashes
    python -m bench.svg_limits rates    # per case: CPU seconds and peak memory of resvg, and the prediction

Each render runs in a fresh process, in its main thread (the default 8 MiB stack), as a worker would.
Not part of `make bench`: the depth search renders a few hundred documents, some of which crash.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from bench.timing import PEAK_MIB_SOURCE
from tests import hostile_svg as h

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# Run in the child: render the SVG on stdin, print "ok|error cpu_seconds peak_mib".
_CHILD = (
    PEAK_MIB_SOURCE
    + """
import sys, time
from fileapi.convert.render import _render
text = sys.stdin.buffer.read().decode()
_render('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>', zoom=1.0, background=None)
started = time.process_time()
try:
    _render(text, zoom=1.0, background=None)
    status = "ok"
except Exception:
    status = "error"
print(status, time.process_time() - started, peak())
"""
)
DEPTHS: dict[str, Callable[[int], bytes]] = {
    "<g>": lambda n: h.wrapped("g", n),
    "<a>": lambda n: h.wrapped("a", n),
    "<svg>": lambda n: h.wrapped("svg", n),
    "<switch>": lambda n: h.wrapped("switch", n),
    "<tspan>": h.nested_text,
    "<use> -> <g>": h.use_chain,
    "<use> -> <symbol>": h.symbol_chain,
    "pattern fills": h.pattern_chain,
    "masks": h.mask_chain,
    "clip paths": h.clip_chain,
    "markers": h.marker_chain,
    "feImage": h.feimage_chain,
}
RATES: dict[str, bytes] = {
    "feTurbulence 2,000 octaves, 50x50": h.filtered('<feTurbulence baseFrequency="0.05" numOctaves="2000"/>', 50),
    "feMorphology radius 10, 1000x1000": h.filtered('<feMorphology radius="10"/>', 1000),
    "feGaussianBlur 50, 2000x1500": h.blur_page(50, 2000, 1500),
    "30 feOffset, 1000x1000": h.filtered('<feOffset dx="1"/>' * 30, 1000),
    "feMerge of 100 nodes, 1000x1000": h.filtered("<feMerge>" + "<feMergeNode/>" * 100 + "</feMerge>", 1000),
    "filter region 200x the canvas": h.filtered(
        '<feOffset dx="1"/>', 1000, region='x="-100" y="-100" width="200" height="200"'
    ),
    "300 opacity layers, 1000x1000": h.opacity_layers(300, 1000),
    "20 nested layers round huge content": h.nested_layers(20),
    "2,000 markers 300x300": h.markers(2000, 300),
    "4,000 tspans in one run": h.tspans(4000),
    "30,000 characters in one run": h.long_text(30000),
    "3,000 hairline curves": h.hairline_curves(3000),
    "2^16 <use> copies": h.use_fanout(16),
    "pattern tile 8000x8000": h.pattern_tile(8000),
}


def render(document: bytes) -> tuple[str, float, float]:
    """(status, CPU seconds, peak MiB) of rendering `document` in a fresh process; status "crash" when it died."""
    completed = subprocess.run(
        [sys.executable, "-c", _CHILD], input=document, capture_output=True, cwd=PROJECT_ROOT, timeout=600, check=False
    )
    if completed.returncode != 0:
        return "crash", 0.0, 0.0
    status, seconds, peak = completed.stdout.split()
    return status.decode(), float(seconds), float(peak)


def deepest(build: Callable[[int], bytes], high: int = 1000) -> tuple[int, int]:
    """(deepest that renders, shallowest that crashes) searched in 1..high; (high, 0) when none crashes."""
    if render(build(high))[0] != "crash":
        return high, 0
    low = 1
    while high - low > 1:
        middle = (low + high) // 2
        if render(build(middle))[0] == "crash":
            high = middle
        else:
            low = middle
    return low, high


def main(arguments: list[str]) -> None:
    from fileapi.convert.render import _inflate, _parse
    from fileapi.convert.svg_prediction import predict

    if arguments[:1] == ["depths"]:
        for name, build in DEPTHS.items():
            fine, crash = deepest(build)
            print(f"{name:<20} renders at {fine}, " + (f"crashes at {crash}" if crash else "never crashed"), flush=True)
        return
    for name, document in RATES.items():
        parsed = _parse(_inflate(document))
        width, height = max(1, round(parsed.size[0])), max(1, round(parsed.size[1]))
        prediction = predict(parsed.tree, canvas=(width, height), zoom=1.0, size=parsed.size)
        status, seconds, peak = render(document)
        print(
            f"{name:<40} {status:<6} {seconds:7.3f} s {peak:7.0f} MiB   predicted {prediction.seconds:7.3f} s "
            f"{prediction.peak_bytes / 2**20:7.0f} MiB",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])
