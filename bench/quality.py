"""targetScore on the corpus's photographs against the same encoders at one fixed quality, in the same run.

For each format: the lowest single quality at which every photograph reaches SSIMULACRA2 80 (found per
photograph by bisection with our scorer, then every photograph checked at it), its total bytes and the time
of one encode per photograph; then targetScore=80 on each, scored by the independent `ssimulacra2` package:
every score within [80, 84], total bytes <= 0.8x, time <= 3x, and our score within 0.1 of the package's. Beside
them, per format: the floor of a search that checks its answer on the whole image (the input decoded, one encode
with the answer's settings, the reference built and the answer scored: no search at all), and how a proxy's score
transfers to the whole image's at the quality chosen (the mosaic of full-resolution tiles that images over 1 MP are
searched on first, and the image downscaled 2x). Photographs over 1 MP: the mosaic's score beside the whole image's
at the quality its search chose. Also the CPU time of scoring one candidate, ours (libvips) beside the package's
(numpy, scipy).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from bench.scoreboard import Goal, record
from fileapi.convert.image import convert_image
from fileapi.convert.image_io import ImageFormat

if TYPE_CHECKING:
    from PIL import Image

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"
PHOTOGRAPHS = (
    "link-u-avif/kimono.jpg",
    "exif-samples/jpg/exif-org/sanyo-vpcsx550.jpg",
    "exif-samples/jpg/exif-org/kodak-dc210.jpg",
    "exif-samples/jpg/exif-org/canon-ixus.jpg",
    "exif-samples/jpg/exif-org/olympus-c960.jpg",
    "exif-samples/jpg/exif-org/ricoh-rdc5300.jpg",
    "exif-samples/jpg/exif-org/nikon-e950.jpg",
    "exif-samples/jpg/exif-org/olympus-d320l.jpg",
    "exif-samples/jpg/exif-org/kodak-dc240.jpg",
    "exif-samples/jpg/exif-org/fujifilm-dx10.jpg",
    "exif-samples/jpg/exif-org/fujifilm-mx1700.jpg",
    "exif-samples/jpg/exif-org/sony-d700.jpg",
    "exif-samples/jpg/exif-org/fujifilm-finepix40i.jpg",
    "exif-samples/jpg/exif-org/sanyo-vpcg250.jpg",
    "exif-samples/jpg/exif-org/sony-cybershot.jpg",
    "exif-samples/jpg/exif-org/sony-powershota5.jpg",
    "exif-samples/jpg/gps/DSCN0010.jpg",
    "exif-samples/jpg/gps/DSCN0021.jpg",
    "exif-samples/jpg/gps/DSCN0025.jpg",
    "exif-samples/jpg/gps/DSCN0029.jpg",
    "exif-samples/jpg/gps/DSCN0038.jpg",
    "exif-samples/jpg/tests/11-tests.jpg",
    "exif-samples/jpg/xmp/no_exif.jpg",
    "exif-samples/jpg/orientation/landscape_1.jpg",
)
LARGE = ("exif-samples/jpg/Reconyx_HC500_Hyperfire.jpg", "exif-samples/jpg/tests/45-gps_ifd.jpg")
TARGET = 80.0
FORMATS = (ImageFormat.JPEG, ImageFormat.WEBP, ImageFormat.AVIF, ImageFormat.JXL)


def _score(original: bytes, encoded: bytes) -> float:
    """Our SSIMULACRA2 of `encoded` against `original` as displayed."""
    from fileapi.convert.image_io import open_image
    from fileapi.convert.ssimulacra2 import ssimulacra2

    reference = open_image(original).convert("RGB")
    return ssimulacra2(reference, open_image(encoded).convert("RGB"))


def _package_score(original: bytes, encoded: bytes, tmp: Path) -> float:
    from ssimulacra2 import compute_ssimulacra2  # type: ignore[import-untyped]

    from fileapi.convert.image_io import open_image

    open_image(original).convert("RGB").save(tmp / "original.png")
    open_image(encoded).convert("RGB").save(tmp / "encoded.png")
    return float(compute_ssimulacra2(str(tmp / "original.png"), str(tmp / "encoded.png")))


def _lowest_quality(data: bytes, fmt: ImageFormat) -> int:
    """The lowest quality at which `data` as `fmt` scores >= TARGET (bisection; scores rise with quality)."""
    low, high = 1, 100
    while low < high:
        middle = (low + high) // 2
        if _score(data, convert_image(data, to=fmt, quality=middle).data) >= TARGET:
            high = middle
        else:
            low = middle + 1
    return low


def bench_quality(tmp: Path) -> None:
    print("\nImage quality: targetScore=80 against one fixed quality (corpus photographs)")
    paths = [CORPUS / name for name in PHOTOGRAPHS if (CORPUS / name).exists()]
    missing = "" if len(paths) >= 20 else f"the corpus photographs are missing ({len(paths)} of {len(PHOTOGRAPHS)})"
    if missing:
        print(f"  skipped: {missing}")
        return
    print(f"  {len(paths)} photographs: " + ", ".join(path.name for path in paths))
    photos = [path.read_bytes() for path in paths]
    _scoring_time(photos, tmp)
    for fmt in FORMATS:
        _bench_format(fmt, photos, tmp)
    _proxy_agreement(tmp)


def _bench_format(fmt: ImageFormat, photos: list[bytes], tmp: Path) -> None:
    fixed = max(_lowest_quality(data, fmt) for data in photos)
    while fixed < 100 and any(
        _score(data, convert_image(data, to=fmt, quality=fixed).data) < TARGET for data in photos
    ):
        fixed += 1  # scores are not strictly monotone: the single quality must hold for every photograph
    started = time.perf_counter()
    fixed_bytes = sum(len(convert_image(data, to=fmt, quality=fixed).data) for data in photos)
    fixed_seconds = time.perf_counter() - started
    started = time.perf_counter()
    results = [convert_image(data, to=fmt, target_score=TARGET) for data in photos]
    target_seconds = time.perf_counter() - started
    target_bytes = sum(len(result.data) for result in results)
    scores = [_package_score(data, result.data, tmp) for data, result in zip(photos, results, strict=True)]
    within = sum(TARGET <= score <= TARGET + 4 for score in scores)
    disagreement = max(abs((result.quality_score or 0) - score) for result, score in zip(results, scores, strict=True))
    name = fmt.value.upper()
    print(f"  {name}: fixed quality {fixed} (lowest at which all reach 80): {fixed_bytes:,} bytes, "
          f"{fixed_seconds * 1000:.0f} ms; targetScore=80: {target_bytes:,} bytes "
          f"({target_bytes / fixed_bytes:.2f}x), {target_seconds * 1000:.0f} ms "
          f"({target_seconds / fixed_seconds:.2f}x); package scores {min(scores):.2f}..{max(scores):.2f}, "
          f"{within} of {len(scores)} within [80, 84], ours within {disagreement:.3f} of them; qualities "
          + ",".join(str(result.encoder_quality) for result in results))  # fmt: skip
    record("Image", f"{name} targetScore=80: photographs within [80, 84] of {len(scores)}", within, "images",
           Goal(min_value=len(scores)))  # fmt: skip
    record("Image", f"{name} targetScore=80: total bytes", target_bytes / 1000, "kB", Goal(max_ratio=0.8),
           anchor=fixed_bytes / 1000, anchor_name=f"quality {fixed} for all")  # fmt: skip
    record("Image", f"{name} targetScore=80: time", target_seconds * 1000, "ms", Goal(max_ratio=3.0),
           anchor=fixed_seconds * 1000, anchor_name=f"one encode at quality {fixed}")  # fmt: skip
    record("Image", f"{name} targetScore=80: our score's distance from the package's", disagreement, "points",
           Goal(max_value=0.1))  # fmt: skip
    floor_seconds = _check_once(fmt, photos, [result.encoder_quality or 100 for result in results])
    print(f"    floor, the answer encoded and checked once on the whole image: {floor_seconds * 1000:.0f} ms "
          f"({floor_seconds / fixed_seconds:.2f}x one encode at quality {fixed})")  # fmt: skip
    record("Image", f"{name} targetScore=80: floor (one encode, one whole-image check)", floor_seconds * 1000, "ms",
           Goal(), anchor=fixed_seconds * 1000, anchor_name=f"one encode at quality {fixed}")  # fmt: skip
    _transfer(fmt, photos, [result.encoder_quality or 100 for result in results])


def _check_once(fmt: ImageFormat, photos: list[bytes], qualities: list[float]) -> float:
    """Seconds to decode each photograph, encode it once at its chosen quality with the answer's settings and
    score that against it (reference built): what a search costs at the least while it checks its answer."""
    from fileapi.convert.image_io import open_image, prepare_for
    from fileapi.convert.quality_search import TUNED, Candidates

    started = time.perf_counter()
    for data, quality in zip(photos, qualities, strict=True):
        prepared, icc_profile = prepare_for(open_image(data), fmt, None)
        Candidates(prepared, fmt, icc_profile=icc_profile, settings=TUNED.get(fmt, {})).score_at(quality)
    return time.perf_counter() - started


def _transfer(fmt: ImageFormat, photos: list[bytes], qualities: list[float]) -> None:
    """Per proxy: its score minus the whole image's, both encoded at the quality targetScore chose with the
    TUNED settings (mean, standard deviation, extremes over the photographs)."""
    from fileapi.convert.image_io import open_image, prepare_for
    from fileapi.convert.quality_search import PROXY_FRACTION, TUNED, Candidates, mosaic

    def downscaled(image: Image.Image) -> Image.Image:
        return image.reduce(2)

    def tiled(image: Image.Image) -> Image.Image:
        return mosaic(image, PROXY_FRACTION)

    proxies: dict[str, Callable[[Image.Image], Image.Image]] = {
        f"mosaic of {PROXY_FRACTION:.0%}": tiled,
        "downscaled 2x": downscaled,
    }
    differences: dict[str, list[float]] = {name: [] for name in proxies}
    for data, quality in zip(photos, qualities, strict=True):
        prepared, _ = prepare_for(open_image(data), fmt, None)
        settings = TUNED.get(fmt, {})
        whole = Candidates(prepared, fmt, icc_profile=None, settings=settings).score_at(quality)
        for name, make in proxies.items():
            proxy = Candidates(make(prepared), fmt, icc_profile=None, settings=settings).score_at(quality)
            differences[name].append(proxy - whole)
    for name, found in differences.items():
        mean, deviation = statistics.mean(found), statistics.pstdev(found)
        print(f"    proxy {name}: its score - the whole image's at the chosen quality: mean {mean:+.2f}, "
              f"sd {deviation:.2f}, {min(found):+.2f}..{max(found):+.2f}")  # fmt: skip
        record("Image", f"{fmt.value.upper()} proxy {name}: score - whole image's, sd over the photographs",
               deviation, "points", Goal(), anchor=None)  # fmt: skip


def _scoring_time(photos: list[bytes], tmp: Path) -> None:
    """CPU time to score one candidate against a reference built once (what the search repeats), ours
    (libvips) against the ssimulacra2 package's (numpy and scipy, float64, reference included), per photograph."""
    from ssimulacra2 import compute_ssimulacra2

    from fileapi.convert.image_io import open_image
    from fileapi.convert.ssimulacra2 import Reference, linear_rgb

    ours: list[float] = []
    theirs: list[float] = []
    for data in photos[::4]:
        original = open_image(data).convert("RGB")
        encoded = open_image(convert_image(data, to=ImageFormat.JPEG, quality=80).data).convert("RGB")
        reference = Reference(linear_rgb(original))
        started = time.process_time()
        reference.score(linear_rgb(encoded))
        ours.append(time.process_time() - started)
        original.save(tmp / "original.png")
        encoded.save(tmp / "encoded.png")
        started = time.process_time()
        compute_ssimulacra2(str(tmp / "original.png"), str(tmp / "encoded.png"))
        theirs.append(time.process_time() - started)
    record("Image", f"SSIMULACRA2 of one candidate, CPU (median of {len(ours)} photographs)",
           statistics.median(ours) * 1000, "ms", Goal(), anchor=statistics.median(theirs) * 1000,
           anchor_name="ssimulacra2 package")  # fmt: skip


def _proxy_agreement(tmp: Path) -> None:
    """For the photographs over 1 MP: the score the mosaic gives at the quality its search chose, the whole
    image's at that quality (what the search then corrects), and the whole image's at the final choice."""
    from fileapi.convert.image_io import open_image, prepare_for
    from fileapi.convert.quality_search import PROXY_ENCODES, PROXY_MARGIN, encode_with, make_proxy, search_tuned

    for name in LARGE:
        path = CORPUS / name
        if not path.exists():
            continue
        data = path.read_bytes()
        for fmt in FORMATS:
            prepared, _ = prepare_for(open_image(data), fmt, None)
            proxy = make_proxy(prepared)[0]
            quality, found = search_tuned(proxy, fmt, TARGET + PROXY_MARGIN, icc_profile=None, max_calls=PROXY_ENCODES)
            mosaic = found.encodings[quality][0]
            whole = _package_score(data, encode_with(prepared, fmt, quality, None, found.settings), tmp)
            result = convert_image(data, to=fmt, target_score=TARGET)
            final = _package_score(data, result.data, tmp)
            print(f"  proxy {path.name} {fmt.value}: quality {quality}: mosaic {mosaic:.2f}, whole image "
                  f"{whole:.2f}; final quality {result.encoder_quality}: {final:.2f}")  # fmt: skip


if __name__ == "__main__":  # python -m bench.quality: these rows alone
    from bench.scoreboard import print_scoreboard

    with tempfile.TemporaryDirectory() as scratch:
        bench_quality(Path(scratch))
    print_scoreboard()
