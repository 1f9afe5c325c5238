"""SSIMULACRA2: how alike a distorted image looks to its original, 100 (identical) down to about -inf
(90 visually lossless, 80 not noticeable side by side, 70 high quality, 50 medium, 30 low).

The metric of libjxl's tools/ssimulacra2.cc (Jon Sneyers, BSD-3-Clause): both images in linear sRGB,
converted to XYB; at 6 scales (halving in linear RGB), a 1-norm and 4-norm of the SSIM error map and of
two edge-difference maps (ringing, blurring) per XYB channel; their weighted sum mapped to the score.
The weights are the reference's 108 numbers. The Gaussian (sigma 1.5) is an 11-tap separable kernel,
mirrored at the left and right edges and zero beyond the top and bottom, as the `ssimulacra2` package
(the independent implementation the tests check against) does; scores agree with it within 0.1.

Float32 numpy, blurred in strips of rows.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray
    from PIL import Image

    Planes = NDArray[np.float32]

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


def ssimulacra2(original: Image.Image, distorted: Image.Image) -> float:
    """The SSIMULACRA2 score of `distorted` against `original` (both as RGB; alpha is ignored).

    :param original: the reference image, any Pillow mode (converted to RGB).
    :param distorted: the same size as `original`.
    :returns: 100 for identical pixels, lower for larger visible differences (may be negative).
    :raises ValueError: the sizes differ, or a side is under 8 px.
    """
    if original.size != distorted.size:
        raise ValueError(f"the images differ in size: {original.size} and {distorted.size}")
    if min(original.size) < MIN_SIDE:
        raise ValueError(f"SSIMULACRA2 needs at least {MIN_SIDE} x {MIN_SIDE} px, not {original.size}")
    return score_linear(linear_rgb(original), linear_rgb(distorted))


def linear_rgb(image: Image.Image) -> Planes:
    """The image's pixels as linear sRGB, float32, height x width x 3 (through a 256-entry table)."""
    import numpy as np

    rgb = image if image.mode == "RGB" else image.convert("RGB")
    linear: Planes = _srgb_to_linear()[np.asarray(rgb)]
    return linear


def score_linear(original: Planes, distorted: Planes) -> float:
    """The score of two linear-RGB arrays of one shape (see `linear_rgb`)."""
    return Reference(original).score(distorted)


class Reference:
    """An original's XYB pyramid with its blurred means and squares, built once to score several
    distorted versions of it (3 blurs per scale and candidate instead of 5)."""

    def __init__(self, original: Planes) -> None:
        import numpy as np

        self.shape = original.shape
        self._scales: list[tuple[Planes, Planes, Planes]] = []
        for scale in range(_SCALES):
            if min(original.shape[:2]) < MIN_SIDE:
                break
            xyb = _xyb(original)
            mean, square = _blur(np.stack((xyb, xyb * xyb)))
            self._scales.append((xyb, mean, square))
            if scale < _SCALES - 1:
                original = _halve(original)

    def score(self, distorted: Planes) -> float:
        """The SSIMULACRA2 score of `distorted` (linear RGB, the original's shape)."""
        import numpy as np

        if distorted.shape != self.shape:
            raise ValueError(f"the images differ in size: {self.shape[:2]} and {distorted.shape[:2]}")
        scales = len(self._scales)
        terms = np.zeros((3, scales, 2, 3), dtype=np.float64)  # channel, scale, norm, (ssim, ringing, blurring)
        for scale, (first, mu1, sigma11) in enumerate(self._scales):
            if scale:
                distorted = _halve(distorted)
            second = _xyb(distorted)
            mu2, sigma22, sigma12 = _blur(np.stack((second, second * second, first * second)))
            terms[:, scale, :, 0] = _norms(_ssim_error(mu1, mu2, sigma11, sigma22, sigma12))
            ratio = (1.0 + np.abs(second - mu2)) / (1.0 + np.abs(first - mu1)) - 1.0
            terms[:, scale, :, 1] = _norms(np.maximum(ratio, 0.0))
            terms[:, scale, :, 2] = _norms(np.maximum(-ratio, 0.0))
        return _final_score(terms)


BAND_ROWS = 64  # rows of a band in score_in_bands (even: a band halves into whole rows)


def score_in_bands(original: Image.Image, distorted: Image.Image) -> float:
    """The SSIMULACRA2 score of `distorted` against `original` (as `ssimulacra2`), computed in bands of rows:
    besides the two images' 8-bit pixels, it holds their linear RGB at half size and below (6 bytes per
    pixel of the original in all) and one band's maps, whatever the image's size.

    :raises ValueError: the sizes differ, or a side is under 8 px.
    """
    import numpy as np

    if original.size != distorted.size:
        raise ValueError(f"the images differ in size: {original.size} and {distorted.size}")
    if min(original.size) < MIN_SIDE:
        raise ValueError(f"SSIMULACRA2 needs at least {MIN_SIDE} x {MIN_SIDE} px, not {original.size}")
    first: NDArray[Any] = np.asarray(original if original.mode == "RGB" else original.convert("RGB"))
    second: NDArray[Any] = np.asarray(distorted if distorted.mode == "RGB" else distorted.convert("RGB"))
    measured: list[NDArray[np.float64]] = []
    for scale in range(_SCALES):
        height, width = first.shape[:2]
        if min(height, width) < MIN_SIDE:
            break
        sums = np.zeros((3, 2, 3), dtype=np.float64)  # channel, (sum, sum of 4th powers), map
        for top in range(0, height, BAND_ROWS):
            rows = min(BAND_ROWS, height - top)
            index = _reflect(np.arange(top - _RADIUS, top + rows + _RADIUS), height)
            one, two = _xyb(_linear(first[index])), _xyb(_linear(second[index]))
            down = _taps(np.stack((one, two, one * one, two * two, one * two)), rows, axis=-2)
            wide = np.zeros((*down.shape[:-1], width + 2 * _RADIUS), dtype=np.float32)
            wide[..., _RADIUS : _RADIUS + width] = down
            mu1, mu2, sigma11, sigma22, sigma12 = _taps(wide, width, axis=-1)
            one, two = one[:, _RADIUS : _RADIUS + rows], two[:, _RADIUS : _RADIUS + rows]
            ratio = (1.0 + np.abs(two - mu2)) / (1.0 + np.abs(one - mu1)) - 1.0
            sums[:, :, 0] += _sums(_ssim_error(mu1, mu2, sigma11, sigma22, sigma12))
            sums[:, :, 1] += _sums(np.maximum(ratio, 0.0))
            sums[:, :, 2] += _sums(np.maximum(-ratio, 0.0))
        means = sums / (height * width)
        measured.append(np.stack((means[:, 0], means[:, 1] ** 0.25), axis=1))  # channel, norm, map
        if scale < _SCALES - 1:
            first, second = _halve_in_bands(first), _halve_in_bands(second)
    return _final_score(np.stack(measured, axis=1))


def _linear(pixels: NDArray[Any]) -> Planes:
    """8-bit sRGB through the table; linear values (a smaller scale's) as they are."""
    import numpy as np

    linear: Planes = _srgb_to_linear()[pixels] if pixels.dtype == np.uint8 else pixels
    return linear


def _halve_in_bands(pixels: NDArray[Any]) -> Planes:
    import numpy as np

    height, width = pixels.shape[:2]
    result = np.empty(((height + 1) // 2, (width + 1) // 2, 3), dtype=np.float32)
    for top in range(0, height, BAND_ROWS):
        result[top // 2 : (min(height, top + BAND_ROWS) + 1) // 2] = _halve(_linear(pixels[top : top + BAND_ROWS]))
    return result


def _sums(maps: Planes) -> NDArray[np.float64]:
    """Per channel of a 3 x rows x width map: the sum and the sum of 4th powers."""
    import numpy as np

    flat = maps.reshape(3, -1).astype(np.float64)
    fourth = (flat * flat) ** 2
    return np.stack((flat.sum(axis=1), fourth.sum(axis=1)), axis=1)


def _final_score(terms: NDArray[np.float64]) -> float:
    """The score from the norms (channel, scale, norm, map) of the scales measured."""
    import numpy as np

    # As in the reference, the weights are taken in order over the scales measured: an image with fewer
    # than 6 scales (a side under 256 px) uses the first ones.
    weighted = float(np.dot(np.abs(terms).reshape(-1), np.asarray(_WEIGHTS[: terms.size]))) * 0.9562382616834844
    weighted = 2.326765642916932 * weighted - 0.020884521182843837 * weighted**2 + 6.248496625763138e-05 * weighted**3
    return 100.0 - 10.0 * weighted**0.6276336467831387 if weighted > 0 else 100.0


@functools.cache
def _srgb_to_linear() -> Planes:
    """The 256 sRGB code values as linear light (a table built once)."""
    import numpy as np

    code = np.arange(256, dtype=np.float64) / 255.0
    linear = np.where(code <= 0.04045, code / 12.92, ((code + 0.055) / 1.055) ** 2.4)
    return linear.astype(np.float32)


def _xyb(linear: Planes) -> Planes:
    """Linear RGB to XYB, shifted positive as SSIMULACRA2 does (X * 14 + 0.42, Y + 0.01, B - Y + 0.55)."""
    import numpy as np

    bias_root = np.float32(np.cbrt(_BIAS))
    mixed = [
        np.cbrt(np.maximum(linear @ np.asarray(row, dtype=np.float32) + np.float32(_BIAS), 0.0)) - bias_root
        for row in _OPSIN
    ]
    x = (mixed[0] - mixed[1]) * np.float32(0.5)
    y = (mixed[0] + mixed[1]) * np.float32(0.5)
    return np.stack((x * np.float32(14.0) + np.float32(0.42), y + np.float32(0.01), mixed[2] - y + np.float32(0.55)))


def _kernel() -> list[float]:
    import math

    taps = [math.exp(-(offset * offset) / (2 * _SIGMA * _SIGMA)) for offset in range(-_RADIUS, _RADIUS + 1)]
    total = sum(taps)
    return [tap / total for tap in taps]


_KERNEL = _kernel()


_STRIP_ROWS = 24  # rows blurred at a time: a strip of every plane stays in the cache (2x faster than whole)


def _blur(planes: Planes) -> Planes:
    """Gaussian blur of (..., height, width) planes: mirrored (half-sample) at the top and bottom, zero
    beyond the left and right edges (the `ssimulacra2` package's blur of its transposed planes)."""
    import numpy as np

    height, width = planes.shape[-2:]
    tall = np.take(planes, _reflect(np.arange(-_RADIUS, height + _RADIUS), height), axis=-2)
    result = np.empty_like(planes)
    for top in range(0, height, _STRIP_ROWS):
        rows = min(_STRIP_ROWS, height - top)
        down = _taps(tall[..., top : top + rows + 2 * _RADIUS, :], rows, axis=-2)
        wide = np.zeros((*planes.shape[:-2], rows, width + 2 * _RADIUS), dtype=np.float32)
        wide[..., _RADIUS : _RADIUS + width] = down
        result[..., top : top + rows, :] = _taps(wide, width, axis=-1)
    return result


def _taps(padded: Planes, size: int, *, axis: int) -> Planes:
    """The symmetric kernel along `axis` of `padded` (`size` + 2 x radius long there), in place: 3
    array operations per pair of taps."""
    import numpy as np

    def window(offset: int) -> Planes:
        index = [slice(None)] * padded.ndim
        index[axis] = slice(offset, offset + size)
        return padded[tuple(index)]

    result = window(_RADIUS) * np.float32(_KERNEL[_RADIUS])
    pair = np.empty_like(result)
    for distance in range(1, _RADIUS + 1):
        np.add(window(_RADIUS - distance), window(_RADIUS + distance), out=pair)
        pair *= np.float32(_KERNEL[_RADIUS + distance])
        result += pair
    return result


def _reflect(index: NDArray[np.int64], size: int) -> NDArray[np.int64]:
    """Indices folded into 0..size-1 by half-sample mirroring (scipy's "reflect")."""
    import numpy as np

    period = 2 * size
    folded = np.mod(index, period)
    return np.where(folded < size, folded, period - 1 - folded)


def _ssim_error(mu1: Planes, mu2: Planes, s11: Planes, s22: Planes, s12: Planes) -> Planes:
    import numpy as np

    m12 = mu1 * mu2
    num_m = 1.0 - (mu1 - mu2) ** 2
    num_s = 2.0 * (s12 - m12) + _C2
    denom_s = (s11 - mu1 * mu1) + (s22 - mu2 * mu2) + _C2
    return np.maximum(1.0 - num_m * num_s / denom_s, 0.0)


def _norms(maps: Planes) -> NDArray[np.float64]:
    """Per channel: the mean (1-norm) and the 4-norm of a 3 x height x width error map."""
    import numpy as np

    flat = maps.reshape(3, -1).astype(np.float64)
    fourth = (flat * flat) ** 2
    return np.stack((flat.mean(axis=1), fourth.mean(axis=1) ** 0.25), axis=1)


def _halve(linear: Planes) -> Planes:
    """2 x 2 box average; an odd last row or column averages with itself."""
    import numpy as np

    height, width = linear.shape[:2]
    if height % 2:
        linear = np.concatenate((linear, linear[-1:]), axis=0)
    if width % 2:
        linear = np.concatenate((linear, linear[:, -1:]), axis=1)
    return (linear[0::2, 0::2] + linear[1::2, 0::2] + linear[0::2, 1::2] + linear[1::2, 1::2]) * np.float32(0.25)
