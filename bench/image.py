"""Image benchmarks: 24 MP resize against libvips (time and peak memory), encode and HEIC decode latency."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

from bench.timing import median_seconds, row
from fileapi.convert.image import convert_image, resize_image
from fileapi.convert.image_io import ImageFormat

_PEAK_SCRIPT = """
import json, os, sys, threading, time
data = open(sys.argv[2], "rb").read()
page = os.sysconf("SC_PAGE_SIZE")

def rss():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * page

peak = 0
running = True

def sample():
    global peak
    while running:
        peak = max(peak, rss())
        time.sleep(0.0005)

engine = sys.argv[1]
if engine == "pillow":
    from fileapi.convert.image import resize_image
    run = lambda: resize_image(data, width=800, height=None)
else:
    import pyvips
    run = lambda: pyvips.Image.thumbnail_buffer(data, 800).write_to_buffer(".jpg[Q=85]")
run()  # warm: libraries loaded
baseline = rss()
sampler = threading.Thread(target=sample)
sampler.start()
run()
running = False
sampler.join()
print(json.dumps({"peak_kib": (peak - baseline) // 1024}))
"""


def photo_jpeg(width: int, height: int, quality: int = 90) -> bytes:
    """A photo-like JPEG: smooth gradients plus noise (so it compresses like a photograph)."""
    from PIL import Image

    noise = Image.effect_noise((width // 8, height // 8), 48).resize((width, height), Image.Resampling.BICUBIC)
    gradient = Image.linear_gradient("L").resize((width, height))
    photo = Image.merge("RGB", (noise, gradient, Image.eval(noise, lambda v: 255 - v)))
    out = io.BytesIO()
    photo.save(out, "JPEG", quality=quality)
    return out.getvalue()


def _peak_kib(engine: str, path: Path) -> int:
    out = subprocess.run([sys.executable, "-c", _PEAK_SCRIPT, engine, str(path)], capture_output=True, text=True)
    if out.returncode != 0:
        return -1
    return int(json.loads(out.stdout)["peak_kib"])


def bench_image(tmp: Path) -> None:
    print("\nImage family")
    big = photo_jpeg(6000, 4000)
    path = tmp / "24mp.jpg"
    path.write_bytes(big)
    ours = median_seconds(lambda: resize_image(big, width=800, height=None), repeat=5)
    try:
        import pyvips
    except ImportError:
        print(row("resize 24 MP JPEG to 800 px wide", ours))
        print("  (pyvips is not installed: `pip install pyvips pyvips-binary` for the libvips ratio)")
        vips = None
    else:
        vips = median_seconds(lambda: pyvips.Image.thumbnail_buffer(big, 800).write_to_buffer(".jpg[Q=85]"), repeat=5)
        print(row("resize 24 MP JPEG to 800 px wide", ours, vips, "libvips thumbnail"))
        ours_kib, vips_kib = _peak_kib("pillow", path), _peak_kib("vips", path)
        print(
            f"  peak memory of one resize: ours {ours_kib / 1024:.0f} MiB, libvips {vips_kib / 1024:.0f} MiB"
            f" ({ours_kib / max(vips_kib, 1):.2f}x)"
        )

    two_mp = photo_jpeg(1920, 1080)
    print(row("JPEG -> WebP, 2 MP", median_seconds(lambda: convert_image(two_mp, to=ImageFormat.WEBP), repeat=5)))
    print(row("JPEG -> AVIF, 2 MP", median_seconds(lambda: convert_image(two_mp, to=ImageFormat.AVIF), repeat=5)))

    import pillow_heif
    from PIL import Image

    pillow_heif.register_heif_opener()
    heic_out = io.BytesIO()
    Image.open(io.BytesIO(photo_jpeg(4032, 3024))).save(heic_out, "HEIF", quality=80)
    heic = heic_out.getvalue()
    print(row("HEIC -> JPEG, 12 MP", median_seconds(lambda: convert_image(heic, to=ImageFormat.JPEG), repeat=5)))
