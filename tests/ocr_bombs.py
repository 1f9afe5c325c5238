"""Hostile inputs of the OCR endpoints, in tests/bombs.py's structure (`Bomb`) and with the paths their
routes will have, both sides of each limit: pixels per page (40 MP, from the header or the page size
before any recognition) and pages per request (500).

Until the routes are declared, tests/unit/convert/test_ocr_bombs.py runs each through its converter with
the options its route will validate (`OPTIONS`); then they join tests.bombs.BOMBS.
"""

from __future__ import annotations

from tests.bombs import INVALID, OK, TOO_LARGE, Bomb
from tests.hostile_files import png_claiming, png_of_zeros
from tests.ocr_fixtures import blank_pages_pdf

PDF_OCR = "/v1/pdf/ocr"
IMAGE_OCR = "/v1/image/ocr"
# At 300 dpi a point is 300/72 pixels: 1517 pt is 6321 px (39.96 MP a square page), 1518 pt 6325 px (40.01 MP).
AT_LIMIT_PT, OVER_LIMIT_PT = 1517, 1518

OCR_BOMBS = [
    Bomb("image/ocr of a png claiming 100 MP", IMAGE_OCR, lambda: png_claiming(10_000, 10_000), TOO_LARGE,
         "a 60-byte header: refused before decoding"),
    Bomb("image/ocr of a real 100 MP png (330 KB)", IMAGE_OCR, lambda: png_of_zeros(10_000, 10_000), TOO_LARGE,
         "real pixel data, refused from the header"),
    Bomb("image/ocr of 39.99 MP (at the limit)", IMAGE_OCR, lambda: png_of_zeros(6324, 6324), OK,
         "the largest page Tesseract is given"),
    Bomb("image/ocr of 40.01 MP", IMAGE_OCR, lambda: png_of_zeros(6325, 6325), TOO_LARGE,
         "one pixel row past the OCR limit"),
    Bomb("image/ocr with a language that is not installed", IMAGE_OCR, lambda: png_of_zeros(64, 64), INVALID,
         "no data for it, and no download", params={"languages": "fra"}),
    Bomb("pdf/ocr of a page of 100 MP at 300 dpi", PDF_OCR, lambda: blank_pages_pdf(1, width_pt=2400, height_pt=2400),
         TOO_LARGE, "a 600-byte file: the page size is read before rendering"),
    Bomb("pdf/ocr of a page of 39.96 MP (at the limit)", PDF_OCR,
         lambda: blank_pages_pdf(1, width_pt=AT_LIMIT_PT, height_pt=AT_LIMIT_PT), OK, "the largest page rendered"),
    Bomb("pdf/ocr of a page of 40.01 MP", PDF_OCR,
         lambda: blank_pages_pdf(1, width_pt=OVER_LIMIT_PT, height_pt=OVER_LIMIT_PT), TOO_LARGE,
         "one pixel row past the OCR limit, before rendering"),
    Bomb("pdf/ocr of 500 small pages (at the limit)", PDF_OCR, lambda: blank_pages_pdf(500, width_pt=36, height_pt=36),
         OK, "every page to recognise"),
    Bomb("pdf/ocr of 501 small pages", PDF_OCR, lambda: blank_pages_pdf(501, width_pt=36, height_pt=36), TOO_LARGE,
         "one page over, refused before any is recognised"),
    Bomb("pdf/ocr of 501 small pages as text, force", PDF_OCR,
         lambda: blank_pages_pdf(501, width_pt=36, height_pt=36), TOO_LARGE, "the same bound for text output",
         params={"output": "text", "force": "true"}),
]  # fmt: skip
