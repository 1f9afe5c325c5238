"""SSIMULACRA2: how alike a distorted image looks to its original, 100 (identical) down to about -inf
(90 visually lossless, 80 not noticeable side by side, 70 high quality, 50 medium, 30 low).

The metric of libjxl's tools/ssimulacra2.cc (Jon Sneyers, BSD-3-Clause): both images in linear sRGB,
converted to XYB; at 6 scales (halving in linear RGB), a 1-norm and 4-norm of the SSIM error map and of
two edge-difference maps (ringing, blurring) per XYB channel; their weighted sum mapped to the score.
The weights are the reference's 108 numbers. The Gaussian (sigma 1.5) is an 11-tap separable kernel,
mirrored (half-sample) at the top and bottom and zero beyond the left and right edges, as the `ssimulacra2`
package (the independent implementation the tests check against) blurs its transposed planes; the
reference's recursive Gaussian differs from it by less than the package does from the reference. Scores
agree with the package within 0.01 on the corpus photographs (tests/corpus/test_ssimulacra2_corpus.py).

Computed by libvips (pyvips with the pyvips-binary wheel, in the layer for big images too) in float32, with
sums in float64 (its `stats`): no numpy at run time.
"""

from __future__ import annotations

import functools
import math
import types
from typing import TYPE_CHECKING

from fileapi.errors import InternalError

if TYPE_CHECKING:
    import pyvips
    from PIL import Image

_SCALES = 6
_C2 = 0.0009
_SIGMA = 1.5
_RADIUS = 5  # round(3.33 * sigma): the kernel's taps beyond it weigh < 1e-3
# The opsin absorbance matrix and bias of XYB (libjxl opsin_params.h).
_OPSIN = (
    (0.30, 1.0 - 0.078 - 0.30, 0.078),
    (0.23, 1.0 - 0.078 - 0.23, 0.078),
    (0.24342268924547819, 0.20476744424496821, 1.0 - 0.24342268924547819 - 0.20476744424496821),
)
_BIAS = 0.0037930732552754493
# From the cube roots (m0, m1, m2) to SSIMULACRA2's positive XYB: X = (m0 - m1) / 2 * 14 + 0.42,
# Y = (m0 + m1) / 2 - cbrt(bias) + 0.01, B = m2 - (m0 + m1) / 2 + 0.55 (the biases of B and Y cancel).
_TO_XYB = ((7.0, -7.0, 0.0), (0.5, 0.5, 0.0), (-0.5, -0.5, 1.0))
_XYB_OFFSET = (0.42, 0.01 - _BIAS ** (1 / 3), 0.55)
# Per channel (X, Y, B), scale (0..5), norm (1, 4): the weights of SSIM error, ringing, blurring.
_WEIGHTS = (
    0.0, 0.0007376606707406586, 0.0, 0.0, 0.0007793481682867309, 0.0, 0.0, 0.0004371155730107379, 0.0,
    1.1041726426657346, 0.00066284834129271, 0.00015231632783718752, 0.0, 0.0016406437456599754, 0.0,
    1.8422455520539298, 11.441172603757666, 0.0, 0.0007989109436015163, 0.000176816438078653, 0.0,
    1.8787594979546387, 10.94906990605142, 0.0, 0.0007289346991508072, 0.9677937080626833, 0.0,
    0.00014003424285435884, 0.9981766977854967, 0.00031949755934435053, 0.0004550992113792063, 0.0, 0.0,
    0.0013648766163243398, 0.0, 0.0, 0.0, 0.0, 0.0, 7.466890328078848, 0.0, 17.445833984131262,
    0.0006235601634041466, 0.0, 0.0, 6.683678146179332, 0.00037724407979611296, 1.027889937768264,
    225.20515300849274, 0.0, 0.0, 19.213238186143016, 0.0011401524586618361, 0.001237755635509985,
    176.39317598450694, 0.0, 0.0, 24.43300999870476, 0.28520802612117757, 0.0004485436923833408, 0.0, 0.0,
    0.0, 34.77906344483772, 44.835625328877896, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0008680556573291698, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0005313191874358747, 0.0, 0.00016533814161379112,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0004179171803251336, 0.0017290828234722833, 0.0, 0.0020827005846636437,
    0.0, 0.0, 8.826982764996862, 23.19243343998926, 0.0, 95.1080498811086, 0.9863978034400682,
    0.9834382792465353, 0.0012286405048278493, 171.2667255897307, 0.9807858872435379, 0.0, 0.0, 0.0,
    0.0005130064588990679, 0.0, 0.00010854057858411537,
)  # fmt: skip
MIN_SIDE = 8  # a scale with a side under 8 px is not measured
# Up to this many pixels a scale's planes are held in memory (4 MP: +266 MiB peak); above it they are
# recomputed from the 8-bit pixels in libvips's strips as each sum needs them: +253/278/280 MiB at 4/12/16 MP,
# 16 MP in 6.0 s of CPU here (the same 2 x 8-bit copies of the pixels included).
IN_MEMORY_PIXELS = 4_000_000
_NO_CEILING = 1e30  # `clamp`'s upper bound when only negatives are cut
NEGLIGIBLE_WEIGHT = 0.01
# Per map (SSIM error, ringing, blurring): its sign and offset from the SSIM or the edge ratio.
_SIGNS = (-1.0, 1.0, -1.0)
_OFFSETS = (1.0, -1.0, 1.0)


def ssimulacra2(original: Image.Image, distorted: Image.Image) -> float:
    """The SSIMULACRA2 score of `distorted` against `original` (both as RGB; alpha is ignored).

    :param original: the reference image, any Pillow mode (converted to RGB).
    :param distorted: the same size as `original`.
    :returns: 100 for identical pixels, lower for larger visible differences (may be negative).
    :raises ValueError: the sizes differ, or a side is under 8 px.
    :raises InternalError: libvips is not installed (see `check_available`).
    """
    if original.size != distorted.size:
        raise ValueError(f"the images differ in size: {original.size} and {distorted.size}")
    if min(original.size) < MIN_SIDE:
        raise ValueError(f"SSIMULACRA2 needs at least {MIN_SIDE} x {MIN_SIDE} px, not {original.size}")
    return Reference(linear_rgb(original)).score(linear_rgb(distorted))


def score_in_bands(original: Image.Image, distorted: Image.Image) -> float:
    """The SSIMULACRA2 score of a large image: the same as `ssimulacra2`, which past IN_MEMORY_PIXELS keeps
    only the two images' 8-bit pixels and libvips's tiles in memory, whatever the image's size."""
    return ssimulacra2(original, distorted)


def check_available() -> None:
    """Refuse to score where libvips cannot be loaded (a build without the pyvips-binary wheel).

    :raises InternalError: saying so, and that a fixed quality works without it.
    """
    _vips()


def linear_rgb(image: Image.Image) -> pyvips.Image:
    """The image's pixels as linear sRGB, 3 float32 bands (through a 256-entry table), computed on demand."""
    vips = _vips()
    rgb = image if image.mode == "RGB" else image.convert("RGB")
    pixels = vips.Image.new_from_memory(rgb.tobytes(), rgb.width, rgb.height, 3, "uchar")
    return pixels.maplut(_srgb_to_linear())


class Reference:
    """An original's XYB pyramid with its blurred means, variances and edge strengths, built once to score
    several distorted versions of it (3 blurred planes per scale and candidate instead of 5).

    Only the channels of a scale with a weight over NEGLIGIBLE_WEIGHT are computed: on an image of 6 scales,
    Y alone at full size, X and Y at half size, nothing at 1/32 (the 40 weights left out are under 0.0021 on
    norms under 1, together under 0.01 score points), 2.4x fewer blurred pixels per candidate; and of those only
    the maps and norms that weigh (at full size the 4-norms of SSIM error and blurring): 10-19% less time per
    candidate on 0.07-0.74 MP photographs."""

    def __init__(self, original: pyvips.Image) -> None:
        self.size = (original.width, original.height)
        self._in_memory = original.width * original.height <= IN_MEMORY_PIXELS
        self._count = _scale_count(original.width, original.height)
        # per scale: its channels; their X, Y or B; blurred means; variances; 1 + |XYB - mean|
        self._scales: list[tuple[tuple[int, ...], pyvips.Image, pyvips.Image, pyvips.Image, pyvips.Image]] = []
        for scale in range(self._count):
            channels = _channels(scale, self._count)
            if scale:
                original = original.shrink(2, 2)  # a 2 x 2 box; an odd last row or column averages with itself
            original = self._kept(original)
            if not channels:
                continue
            xyb = self._kept(_xyb(original, channels))
            size = len(channels)
            blurred = self._kept(_blur(self._kept(xyb.bandjoin(xyb * xyb))))
            mean = self._kept(blurred.extract_band(0, n=size))
            variance = self._kept(blurred.extract_band(size, n=size) - mean * mean)
            self._scales.append((channels, xyb, mean, variance, self._kept((xyb - mean).abs() + 1.0)))

    def score(self, distorted: pyvips.Image) -> float:
        """The SSIMULACRA2 score of `distorted` (linear RGB from `linear_rgb`, the original's size)."""
        if (distorted.width, distorted.height) != self.size:
            raise ValueError(f"the images differ in size: {self.size} and {(distorted.width, distorted.height)}")
        # per (channel, scale): the 1-norms of SSIM error, ringing, blurring, then their 4-norms
        norms: dict[tuple[int, int], list[float]] = {}
        planes = iter(self._scales)
        for scale in range(self._count):
            if scale:
                distorted = self._kept(distorted.shrink(2, 2))
            if not _channels(scale, self._count):
                continue
            channels, *reference = next(planes)
            found = self._norms(reference, self._kept(_xyb(distorted, channels)), channels, scale)
            for index, channel in enumerate(channels):
                norms[channel, scale] = found[index]
        terms = [  # in the weights' order: channel, scale, norm, map
            norms.get((channel, scale), [0.0] * 6)[norm * 3 + kind]
            for channel in range(3)
            for scale in range(self._count)
            for norm in range(2)
            for kind in range(3)
        ]
        return _final_score(terms)

    def _norms(
        self, reference: list[pyvips.Image], second: pyvips.Image, channels: tuple[int, ...], scale: int
    ) -> list[list[float]]:
        """Per channel: the 1-norms of its SSIM error, ringing and blurring maps, then their 4-norms (0.0 for
        the maps and norms whose weights at this scale are all under NEGLIGIBLE_WEIGHT: not computed)."""
        first, mu1, variance1, edge1 = reference
        size = len(channels)
        kinds, one_norms = _maps_weighed(scale, self._count, channels)
        # the blur's input in memory: its margins would otherwise recompute the products (-8% time)
        blurred = self._kept(_blur(self._kept(second.bandjoin([second * second, first * second]))))
        mu2 = blurred.extract_band(0, n=size)
        planes: list[pyvips.Image] = []
        if 0 in kinds:
            difference = mu1 - mu2
            means = (difference * difference).linear(-1.0, 1.0)
            covariances = (blurred.extract_band(2 * size, n=size) - mu1 * mu2).linear(2.0, _C2)
            # as the covariances, so that identical images give exactly 0 (float32 rounding alone scores 99.94)
            variances = (variance1 + (blurred.extract_band(size, n=size) - mu2 * mu2)).linear(1.0, _C2)
            planes.append(means * covariances / variances)
        if 1 in kinds or 2 in kinds:
            ratio = ((second - mu2).abs() + 1.0) / edge1
            planes += [ratio] * (len(kinds) - len(planes))
        # SSIM error (1 - ssim), ringing (ratio - 1), blurring (1 - ratio), each cut at 0
        signs = [_SIGNS[kind] for kind in kinds for _ in channels]
        offsets = [_OFFSETS[kind] for kind in kinds for _ in channels]
        joined = planes[0].bandjoin(planes[1:]) if len(planes) > 1 else planes[0]
        maps = self._kept(joined.linear(signs, offsets).clamp(min=0.0, max=_NO_CEILING))
        # Per band of `stats` (row 0 is all bands): column 3 the sum of squares, column 4 the mean; the
        # squares' squares give the 4th powers. The maps themselves only where a 1-norm weighs.
        squares = maps * maps
        sums = _rows((maps.bandjoin(squares) if one_norms else squares).stats())
        fourth = 1 + (len(kinds) * size if one_norms else 0)  # the row of the first square
        pixels = maps.width * maps.height
        found = [[0.0] * 6 for _ in channels]
        for place, kind in enumerate(kinds):
            for index in range(size):
                row = place * size + index
                if kind in one_norms:
                    found[index][kind] = sums[1 + row][4]
                found[index][3 + kind] = (sums[fourth + row][3] / pixels) ** 0.25
        return found

    def _kept(self, image: pyvips.Image) -> pyvips.Image:
        """`image` computed into memory when the images are small enough (each plane then computed once)."""
        return image.copy_memory() if self._in_memory else image


def _scale_count(width: int, height: int) -> int:
    """The scales measured: halving until a side is under MIN_SIDE, at most 6."""
    count = 0
    while count < _SCALES and min(width, height) >= MIN_SIDE:
        count += 1
        width, height = (width + 1) // 2, (height + 1) // 2
    return count


@functools.cache
def _channels(scale: int, count: int) -> tuple[int, ...]:
    """The channels (0 X, 1 Y, 2 B) of `scale` with a weight over NEGLIGIBLE_WEIGHT when `count` scales are
    measured (the weights are taken in order over the scales measured, as in the reference)."""
    return tuple(
        channel
        for channel in range(3)
        if max(_WEIGHTS[((channel * count + scale) * 2) * 3 : ((channel * count + scale) * 2 + 2) * 3])
        > NEGLIGIBLE_WEIGHT
    )


@functools.cache
def _maps_weighed(scale: int, count: int, channels: tuple[int, ...]) -> tuple[tuple[int, ...], frozenset[int]]:
    """(the maps, 0 SSIM error, 1 ringing, 2 blurring, with a weight over NEGLIGIBLE_WEIGHT for a channel of
    `scale`; those whose 1-norm has one): at full size only the 4-norms of SSIM error and blurring weigh."""
    weighed = [
        (norm, kind)
        for channel in channels
        for norm in range(2)
        for kind in range(3)
        if _WEIGHTS[((channel * count + scale) * 2 + norm) * 3 + kind] > NEGLIGIBLE_WEIGHT
    ]
    kinds = tuple(sorted({kind for _, kind in weighed}))
    return kinds, frozenset(kind for norm, kind in weighed if norm == 0)


def _rows(matrix: pyvips.Image) -> list[list[float]]:
    import struct

    data = matrix.cast("double").write_to_memory()
    width = matrix.width
    values = struct.unpack(f"{len(data) // 8}d", data)
    return [list(values[top : top + width]) for top in range(0, len(values), width)]


def _final_score(terms: list[float]) -> float:
    """The score from the norms (channel, scale, norm, map) of the scales measured."""
    # As in the reference, the weights are taken in order over the scales measured: an image with fewer
    # than 6 scales (a side under 256 px) uses the first ones.
    weighted = sum(abs(term) * weight for term, weight in zip(terms, _WEIGHTS, strict=False)) * 0.9562382616834844
    weighted = 2.326765642916932 * weighted - 0.020884521182843837 * weighted**2 + 6.248496625763138e-05 * weighted**3
    return 100.0 - 10.0 * weighted**0.6276336467831387 if weighted > 0 else 100.0


def _xyb(linear: pyvips.Image, channels: tuple[int, ...]) -> pyvips.Image:
    """`channels` (0 X, 1 Y, 2 B) of linear RGB in XYB, shifted positive as SSIMULACRA2 does (see _TO_XYB).
    The opsin mix plus the bias is positive (linear light >= 0), so its cube root is exp(log / 3): 3.4x
    faster than `pow` here. B alone needs the third mix."""
    mixes = 3 if 2 in channels else 2
    mixed = linear.recomb([list(row) for row in _OPSIN[:mixes]]) + _BIAS
    roots = (mixed.log() * (1.0 / 3.0)).exp()
    rows = [list(_TO_XYB[channel][:mixes]) for channel in channels]
    return roots.recomb(rows).linear([1.0] * len(channels), [_XYB_OFFSET[channel] for channel in channels])


def _blur(planes: pyvips.Image) -> pyvips.Image:
    """Gaussian blur of every band: mirrored (half-sample) at the top and bottom, zero beyond the left and
    right edges (libvips's own edge, the copied pixels, falls in the margins cropped away)."""
    width, height = planes.width, planes.height
    tall = planes.embed(0, _RADIUS, width, height + 2 * _RADIUS, extend="mirror")
    padded = tall.embed(_RADIUS, 0, width + 2 * _RADIUS, height + 2 * _RADIUS, extend="black")
    return padded.convsep(_kernel(), precision="float").crop(_RADIUS, _RADIUS, width, height)


@functools.cache
def _kernel() -> pyvips.Image:
    taps = [math.exp(-(offset * offset) / (2 * _SIGMA * _SIGMA)) for offset in range(-_RADIUS, _RADIUS + 1)]
    total = sum(taps)
    return _vips().Image.new_from_list([[tap / total for tap in taps]], scale=1.0)


@functools.cache
def _srgb_to_linear() -> pyvips.Image:
    """The 256 sRGB code values as linear light (a float32 table built once)."""
    codes = [code / 255.0 for code in range(256)]
    linear = [code / 12.92 if code <= 0.04045 else ((code + 0.055) / 1.055) ** 2.4 for code in codes]
    return _vips().Image.new_from_list([linear]).cast("float")


def _vips() -> types.ModuleType:
    from fileapi.convert.image_vips import installed_vips

    module = installed_vips()
    if module is None:
        raise InternalError(
            "targetScore is not available here: its scorer needs libvips (the pyvips-binary package), "
            "which this installation lacks; give quality instead"
        )
    return module
