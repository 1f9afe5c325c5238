"""The small pieces behind the real-world robustness work: clean apertures, tone curves, error wording,
the response limit of a conversion."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from fileapi.convert import payload
from fileapi.convert.bmff import CleanAperture, read_primary_image
from fileapi.convert.image_decode import _tone_curve, describe
from fileapi.convert.pdf_errors import pdf_problem
from fileapi.errors import TooLarge


def test_clean_aperture_is_centred_and_moved_by_its_offsets() -> None:
    aperture = CleanAperture(Fraction(385), Fraction(330), Fraction(-24), Fraction(-20))
    assert aperture.crop_box((722, 1024)) == (144, 327, 529, 657)


def test_clean_aperture_outside_the_image_is_ignored() -> None:
    assert CleanAperture(Fraction(800), Fraction(10), Fraction(0), Fraction(0)).crop_box((722, 1024)) is None
    assert CleanAperture(Fraction(722), Fraction(1024), Fraction(0), Fraction(0)).crop_box((722, 1024)) is None


def test_a_file_that_is_not_bmff_describes_nothing() -> None:
    assert read_primary_image(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64).clean_aperture is None
    assert read_primary_image(b"\x00\x00\x00\x18ftypavif").transfer is None


@pytest.mark.parametrize("pq", [True, False])
def test_tone_curves_rise_and_keep_black(pq: bool) -> None:
    curve = _tone_curve(pq)
    assert curve[0] == 0
    assert all(a <= b for a, b in itertools.pairwise(curve))
    assert curve[-1] >= 250


def test_pq_reference_white_lands_near_sdr_white() -> None:
    # PQ code value of 203 nits is 0.58 (BT.2408): a bright grey, with room left for highlights
    assert 170 <= _tone_curve(True)[round(0.58 * 255)] <= 230


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("image file is truncated (12 bytes not processed)", "it ends too early"),
        ("Failed to decode image: BMFF parsing failed", "its ISO-BMFF boxes (the AVIF/HEIF container) are malformed"),
        ("broken data stream when reading image file", "its compressed pixel data is corrupt"),
        ("some new message from a library", "its data cannot be decoded"),
    ],
)
def test_image_failures_are_worded_by_what_is_wrong(message: str, expected: str) -> None:
    assert describe(OSError(message)) == expected


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (
            "<_io.BytesIO object at 0x7f>: offset 1234: xref not found",
            "its cross-reference table is broken at offset 1,234",
        ),
        (
            "stream (object 4,0, offset 319): read_bytes called on unfilterable stream",
            "a stream's data cannot be decoded at offset 319",
        ),
        ("EOF marker not found", "it is truncated (it ends before its end marker)"),
        ("Invalid Elementary Object starting with b'\\xe3' @806", "an object in it is malformed"),
    ],
)
def test_pdf_failures_are_worded_by_what_is_wrong(message: str, expected: str) -> None:
    problem = pdf_problem(RuntimeError(message))
    assert problem == expected
    assert "BytesIO" not in problem and "0x7f" not in problem


def test_results_are_checked_against_the_limit_of_their_context() -> None:
    payload.check("the image", 10**9, hint="smaller")  # no limit outside a conversion: nothing refused
    with payload.response_limit(1_000):
        payload.check("the image", 750, hint="smaller")  # 1,000 bytes once base64-encoded
        with pytest.raises(TooLarge, match=r"over the response limit of 1,000 bytes; smaller"):
            payload.check("the image", 751, hint="smaller")
        with pytest.raises(TooLarge):
            payload.check("the text", 1_001, binary=False, hint="smaller")
