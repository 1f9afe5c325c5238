"""Big images: a 36 MP PNG to WebP as an operation converts it (fileapi.convert.image_files) against libvips
(`vips copy` to WebP at the same quality and effort), and the peak memory of one conversion at 12 and 36 MP.
"""

from __future__ import annotations

from pathlib import Path

from bench.image import photo_jpeg
from bench.scoreboard import Goal, record
from bench.timing import fresh_peak_kib, median_seconds, paired_medians, row

# One conversion in a fresh process: the peak resident memory above the process's after a small warm-up.
_PEAK_SCRIPT = """
import sys
source, out = sys.argv[2], sys.argv[3]
if sys.argv[1] == "ours":
    from fileapi.convert.image_files import convert_image_file
    from fileapi.convert.image_io import ImageFormat
    run = lambda path: convert_image_file(path, out, to=ImageFormat.WEBP)
elif sys.argv[1] == "pillow":
    from pathlib import Path
    from fileapi.convert.image import convert_image
    from fileapi.convert.image_io import ImageFormat
    run = lambda path: Path(out).write_bytes(convert_image(Path(path), to=ImageFormat.WEBP).data)
else:
    import pyvips
    run = lambda path: pyvips.Image.new_from_file(path, access="sequential").webpsave(out, Q=80, effort=4)
warm = lambda: run(sys.argv[4])
measured = lambda: run(source)
"""


def _png(tmp: Path, width: int, height: int) -> Path:
    import io

    from PIL import Image

    path = tmp / f"{width}x{height}.png"
    Image.open(io.BytesIO(photo_jpeg(width, height))).save(path, compress_level=1)
    return path


def _peak_mib(engine: str, source: Path, tmp: Path, small: Path) -> float | None:
    kib = fresh_peak_kib(_PEAK_SCRIPT, engine, str(source), str(tmp / "peak.webp"), str(small))
    return kib / 1024 if kib is not None else None


def bench_big_images(tmp: Path) -> None:
    from fileapi.convert.image import convert_image
    from fileapi.convert.image_files import convert_image_file
    from fileapi.convert.image_io import ImageFormat

    try:
        import pyvips
    except ImportError:
        pyvips = None
    small = _png(tmp, 640, 480)
    twelve = _png(tmp, 4240, 2832)
    thirty_six = _png(tmp, 7344, 4896)
    target = str(tmp / "ours.webp")
    vips_seconds = None
    if pyvips is not None:
        ours_seconds, vips_seconds = paired_medians(
            lambda: convert_image_file(str(thirty_six), target, to=ImageFormat.WEBP),
            lambda: pyvips.Image.new_from_file(str(thirty_six), access="sequential").webpsave(
                str(tmp / "vips.webp"), Q=80, effort=4
            ),
            repeat=3,
        )
    else:
        ours_seconds = median_seconds(
            lambda: convert_image_file(str(thirty_six), target, to=ImageFormat.WEBP), repeat=3
        )
    missing = "" if pyvips is not None else "pyvips not installed (pip install pyvips pyvips-binary)"
    print(row("36 MP PNG -> WebP (operation's converter)", ours_seconds, vips_seconds, "vips copy Q=80 effort 4"))
    pillow_seconds = median_seconds(lambda: convert_image(thirty_six, to=ImageFormat.WEBP), repeat=3)
    print(row("36 MP PNG -> WebP through Pillow (before)", pillow_seconds, vips_seconds, "vips copy Q=80 effort 4"))
    record("Image", "36 MP PNG -> WebP", ours_seconds * 1000, "ms", Goal(max_ratio=1.2),
           anchor=vips_seconds and vips_seconds * 1000, anchor_name="vips copy to WebP", missing=missing)  # fmt: skip
    peaks = {size: _peak_mib("ours", path, tmp, small) for size, path in (("12 MP", twelve), ("36 MP", thirty_six))}
    vips_peaks = (
        {size: _peak_mib("vips", path, tmp, small) for size, path in (("12 MP", twelve), ("36 MP", thirty_six))}
        if pyvips is not None
        else {}
    )
    pillow_peaks = {
        size: _peak_mib("pillow", path, tmp, small) for size, path in (("12 MP", twelve), ("36 MP", thirty_six))
    }
    print(
        "  peak memory through Pillow (before): "
        + ", ".join(f"{size} {peak and round(peak)} MiB" for size, peak in pillow_peaks.items())
    )
    print("  peak memory of one PNG -> WebP: " + ", ".join(
        f"{size} ours {peak and round(peak)} MiB, libvips {vips_peaks.get(size) and round(vips_peaks[size] or 0)} MiB"
        for size, peak in peaks.items()))  # fmt: skip
    if peaks["36 MP"] and vips_peaks.get("36 MP"):
        # libwebp encodes from a whole picture, so no WebP encoder's memory is flat in the image's size: the
        # goal is libvips's own peak, with the growth from 12 to 36 MP printed above.
        record("Image", "36 MP PNG -> WebP, extra peak memory", peaks["36 MP"], "MiB", Goal(max_ratio=1.05),
               anchor=vips_peaks["36 MP"], anchor_name="vips copy to WebP")  # fmt: skip


if __name__ == "__main__":  # python -m bench.big_images: these rows alone
    import tempfile

    from bench.scoreboard import print_scoreboard

    with tempfile.TemporaryDirectory() as scratch:
        bench_big_images(Path(scratch))
    print_scoreboard()
