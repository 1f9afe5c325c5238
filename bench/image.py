"""Image benchmarks: 24 MP resize against libvips (time and peak memory), encode and HEIC decode latency."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
from pathlib import Path

from bench.scoreboard import Goal, record
from bench.timing import cpu_seconds, fresh_peak_kib, median_seconds, paired_medians, row
from fileapi.convert.image import convert_image, resize_image
from fileapi.convert.image_io import ImageFormat

# One resize in a fresh process, after a small warm-up resize (libraries and code paths loaded, no
# large buffer kept): the peak resident memory above the process's, exact (VmHWM reset through
# /proc/self/clear_refs), so allocator reuse from an earlier large run does not hide any of it.
_PEAK_SCRIPT = """
import io, sys
from PIL import Image
data = open(sys.argv[2], "rb").read()
small = io.BytesIO()
Image.new("RGB", (640, 480), "red").save(small, "JPEG")
if sys.argv[1] == "ours":
    from fileapi.convert.image import resize_image
    run = lambda blob, width: resize_image(blob, width=width, height=None)
else:
    import pyvips
    run = lambda blob, width: pyvips.Image.thumbnail_buffer(blob, width).write_to_buffer(sys.argv[3])
warm = lambda: run(small.getvalue(), 80)
measured = lambda: run(data, 800)
"""
# The anchor writes the JPEG as ours does by default (quality 85, optimised Huffman tables,
# progressive above 10,000 pixels, only the ICC profile kept).
VIPS_JPEG = ".jpg[Q=85,optimize_coding=true,interlace=true,keep=icc]"
# The anchors at our default settings: AVIF quality 60 is libavif's quantizer 25 ((100 - 60) * 63 / 100),
# 4:2:0 as Pillow writes it (libavif at speed 8, the reference); WebP quality 80, method 4.
AVIFENC = (
    "avifenc",
    "--speed",
    "8",
    "--yuv",
    "420",
    "--min",
    "25",
    "--max",
    "25",
    "--jobs",
    "all",
    "{source}",
    "{target}",
)
CWEBP = ("cwebp", "-quiet", "-q", "80", "-m", "4", "{source}", "-o", "{target}")


def photo_jpeg(width: int, height: int, quality: int = 90) -> bytes:
    """A photo-like JPEG: smooth gradients plus noise (so it compresses like a photograph)."""
    from PIL import Image

    noise = Image.effect_noise((width // 8, height // 8), 48).resize((width, height), Image.Resampling.BICUBIC)
    gradient = Image.linear_gradient("L").resize((width, height))
    photo = Image.merge("RGB", (noise, gradient, Image.eval(noise, lambda v: 255 - v)))
    out = io.BytesIO()
    photo.save(out, "JPEG", quality=quality)
    return out.getvalue()


def _peak_kib(engine: str, path: Path) -> int | None:
    return fresh_peak_kib(_PEAK_SCRIPT, engine, str(path), VIPS_JPEG)


def butteraugli(reference_png: Path, encoded: bytes, tmp: Path) -> float | None:
    """The butteraugli distance of `encoded` (any format Pillow reads) from the reference (lower is closer)."""
    from PIL import Image

    if shutil.which("butteraugli") is None:
        return None
    decoded = tmp / "decoded.png"
    Image.open(io.BytesIO(encoded)).convert("RGB").save(decoded)
    out = subprocess.run(["butteraugli", str(reference_png), str(decoded)], capture_output=True, text=True)
    return float(out.stdout.split()[0]) if out.returncode == 0 and out.stdout.strip() else None


def _missing(*tools: str) -> str:
    packages = {"avifenc": "libavif-bin", "cwebp": "webp", "butteraugli": "butteraugli"}
    absent = [tool for tool in tools if shutil.which(tool) is None]
    return ", ".join(f"{tool} not installed (apt-get install {packages[tool]})" for tool in absent)


def bench_encoders(tmp: Path) -> None:
    """JPEG -> AVIF and JPEG -> WebP of a 2 MP photo against avifenc and cwebp (each anchor reads the same
    JPEG file, so both sides decode it and encode), paired medians of wall time, the CPU time of each side
    beside it (on a shared machine the wall time of a two-thread encoder depends on the other sessions),
    and the butteraugli distance of both outputs from the decoded JPEG."""
    from PIL import Image

    two_mp = photo_jpeg(1920, 1080)
    source = tmp / "2mp.jpg"
    source.write_bytes(two_mp)
    reference = tmp / "2mp.png"
    Image.open(source).convert("RGB").save(reference)
    for fmt, tool, goal in (
        (ImageFormat.AVIF, AVIFENC, Goal(max_value=80)),
        (ImageFormat.WEBP, CWEBP, Goal(max_ratio=1.0)),
    ):
        ours_score = butteraugli(reference, convert_image(two_mp, to=fmt).data, tmp)
        target = tmp / f"anchor.{fmt.value}"
        missing = _missing(tool[0], "butteraugli")
        anchor = anchor_score = None
        if shutil.which(tool[0]):
            argv = [part.format(source=source, target=target) for part in tool]
            ours_seconds, anchor = paired_medians(
                lambda: convert_image(two_mp, to=fmt),  # noqa: B023
                lambda: subprocess.run(argv, check=True, capture_output=True),  # noqa: B023
            )
            ours_cpu, anchor_cpu = paired_medians(
                lambda: convert_image(two_mp, to=fmt),  # noqa: B023
                lambda: subprocess.run(argv, check=True, capture_output=True),  # noqa: B023
                clock=cpu_seconds,
            )
            anchor_score = butteraugli(reference, target.read_bytes(), tmp)
        else:
            ours_seconds = median_seconds(lambda: convert_image(two_mp, to=fmt), repeat=7)  # noqa: B023
            ours_cpu = median_seconds(lambda: convert_image(two_mp, to=fmt), clock=cpu_seconds)  # noqa: B023
            anchor_cpu = None
        name = f"JPEG -> {fmt.value.upper()}, 2 MP"
        print(row(name, ours_seconds, anchor, tool[0]))
        print(f"  CPU time: ours {ours_cpu * 1000:.1f} ms, {tool[0]} "
              + (f"{anchor_cpu * 1000:.1f} ms" if anchor_cpu else "n/a"))  # fmt: skip
        scores = f"butteraugli ours {ours_score if ours_score is not None else 'n/a'}, "
        scores += f"{tool[0]} {anchor_score if anchor_score is not None else 'n/a'}"
        print(f"  {scores}; bytes ours {len(convert_image(two_mp, to=fmt).data):,}, "
              f"{tool[0]} {target.stat().st_size if target.exists() else 'n/a'}")  # fmt: skip
        record("Image", f"{name} ({scores}; both decode the JPEG)", ours_seconds * 1000, "ms", goal,
               anchor=anchor and anchor * 1000, anchor_name=" ".join(tool[:3]), missing=missing)  # fmt: skip


def bench_image(tmp: Path) -> None:
    print("\nImage family")
    big = photo_jpeg(6000, 4000)
    path = tmp / "24mp.jpg"
    path.write_bytes(big)
    try:
        import pyvips
    except ImportError:
        pyvips = None
    vips = None
    if pyvips is not None:
        ours, vips = paired_medians(
            lambda: resize_image(big, width=800, height=None),
            lambda: pyvips.Image.thumbnail_buffer(big, 800).write_to_buffer(VIPS_JPEG),
        )
    else:
        ours = median_seconds(lambda: resize_image(big, width=800, height=None), repeat=7)
    missing = "" if pyvips is not None else "pyvips not installed (pip install pyvips pyvips-binary)"
    print(row("resize 24 MP JPEG to 800 px wide", ours, vips, "libvips thumbnail, same JPEG settings"))
    record("Image", "resize 24 MP JPEG to 800 px", ours * 1000, "ms", Goal(max_ratio=1.0),
           anchor=vips and vips * 1000, anchor_name="libvips thumbnail", missing=missing)  # fmt: skip
    ours_kib = _peak_kib("ours", path)
    vips_kib = _peak_kib("vips", path) if pyvips is not None else None
    if ours_kib is not None:
        print(f"  extra peak memory of one resize: ours {ours_kib / 1024:.1f} MiB, libvips "
              + (f"{vips_kib / 1024:.1f} MiB" if vips_kib else "n/a"))  # fmt: skip
        record("Image", "resize 24 MP JPEG to 800 px, extra peak memory", ours_kib / 1024, "MiB",
               Goal(max_ratio=0.3), anchor=vips_kib and vips_kib / 1024, anchor_name="libvips thumbnail",
               missing=missing)  # fmt: skip

    bench_encoders(tmp)

    import pillow_heif
    from PIL import Image

    pillow_heif.register_heif_opener()
    heic_out = io.BytesIO()
    Image.open(io.BytesIO(photo_jpeg(4032, 3024))).save(heic_out, "HEIF", quality=80)
    heic = heic_out.getvalue()
    print(row("HEIC -> JPEG, 12 MP", median_seconds(lambda: convert_image(heic, to=ImageFormat.JPEG), repeat=5)))


if __name__ == "__main__":  # python -m bench.image [encoders]: the image rows alone (encoders: the 2 MP encodes)
    import tempfile

    from bench.scoreboard import print_scoreboard

    with tempfile.TemporaryDirectory() as scratch:
        (bench_encoders if sys.argv[1:] == ["encoders"] else bench_image)(Path(scratch))
    print_scoreboard()
