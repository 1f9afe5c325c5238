"""OCR converters on scans made here (where each word is, known), checked with pdftotext, pdfimages,
pdffonts and qpdf."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pikepdf
import pytest

from fileapi.convert.ocr_engine import installed_languages, parse_languages
from fileapi.convert.ocr_image import image_ocr
from fileapi.convert.ocr_options import SHIPPED_LANGUAGES, OcrOutput
from fileapi.convert.ocr_pdf import pdf_ocr
from fileapi.convert.pdf import PdfText
from fileapi.errors import InvalidInput, UnsupportedFormat
from fileapi.models.image import ImageOcrOptions, ImageOcrResult
from fileapi.models.pdf import PdfOcrOptions, PdfOcrTextResult
from tests.helpers import require_tool
from tests.ocr_fixtures import LINES, encoded, scanned_pdf, text_scan

PROJECT_ROOT = Path(__file__).resolve().parents[3]
SCAN = text_scan()
WORDS = {word.strip(".,").lower() for line in LINES for word in line.split()}


def pdftotext(tmp_path: Path, data: bytes, *options: str) -> str:
    path = tmp_path / "in.pdf"
    path.write_bytes(data)
    argv = [require_tool("pdftotext"), *options, str(path), "-"]
    return subprocess.run(argv, capture_output=True, check=True).stdout.decode()


def found_words(text: str) -> set[str]:
    return {word.strip(".,").lower() for word in text.split()}


@pytest.fixture(scope="module")
def searchable() -> tuple[bytes, bytes]:
    """A two-page scan (the same page twice) and its searchable version."""
    original = scanned_pdf([SCAN.image, SCAN.image])
    result = pdf_ocr(original)
    assert isinstance(result, bytes)
    return original, result


def test_image_ocr_blocks_hold_the_lines_with_their_boxes() -> None:
    result = image_ocr(encoded(SCAN.image))
    assert [block.text for block in result.blocks] == list(LINES)
    assert result.text.splitlines()[0] == LINES[0]
    for block, line in zip(result.blocks, LINES, strict=True):
        first, last = SCAN.boxes[line.split()[0]], SCAN.boxes[line.split()[-1]]
        box = block.bbox
        # the line's box is the drawn words' union, give or take the rasteriser's few pixels
        assert abs(box.x - first[0]) <= 4 and abs(box.x + box.width - last[2]) <= 4
        assert abs(box.y - min(b[1] for w, b in SCAN.boxes.items() if w in line.split())) <= 6
        assert 20 <= box.height <= 60
        assert 80 <= block.confidence <= 100


def test_results_fit_their_models(searchable: tuple[bytes, bytes]) -> None:
    image = ImageOcrResult.model_validate(image_ocr(encoded(SCAN.image))).model_dump(by_alias=True)
    assert image["blocks"][0]["bbox"].keys() == {"x", "y", "width", "height"}
    assert image["blocks"][0]["text"] == LINES[0]
    text = PdfOcrTextResult.model_validate(pdf_ocr(searchable[0], output=OcrOutput.TEXT)).model_dump(by_alias=True)
    assert len(text["pages"]) == 2


def test_image_ocr_of_a_jpeg_reads_the_words() -> None:
    result = image_ocr(encoded(SCAN.image.convert("RGB"), "JPEG", quality=70))
    assert found_words(result.text) >= WORDS


def test_image_ocr_reads_black_text_on_a_transparent_background() -> None:
    from PIL import Image

    transparent = Image.new("RGBA", SCAN.image.size, (0, 0, 0, 0))
    transparent.putalpha(SCAN.image.point(lambda value: 255 - value))  # ink opaque black, paper transparent black
    assert found_words(image_ocr(encoded(transparent)).text) >= WORDS


def test_image_ocr_of_a_blank_image_is_empty() -> None:
    from PIL import Image

    result = image_ocr(encoded(Image.new("RGB", (400, 300), "white")))
    assert result.text == ""
    assert result.blocks == []


def test_image_ocr_refuses_what_is_not_an_image() -> None:
    with pytest.raises(UnsupportedFormat):
        image_ocr(b"%PDF-1.7 not an image")
    with pytest.raises(InvalidInput, match="empty"):
        image_ocr(b"")


def test_searchable_pdf_reads_with_pdftotext(tmp_path: Path, searchable: tuple[bytes, bytes]) -> None:
    original, result = searchable
    assert pdftotext(tmp_path, original).strip() == ""
    pages = pdftotext(tmp_path, result).split("\f")
    for page in pages[:2]:
        assert found_words(page) >= WORDS
        assert LINES[0] in " ".join(page.split())  # the words of a line read in order, as one line


def test_searchable_pdf_words_sit_over_their_image(tmp_path: Path, searchable: tuple[bytes, bytes]) -> None:
    """pdftotext's box of each word, in points, over where the word was drawn (200 dpi: 72/200 pt a pixel)."""
    html = pdftotext(tmp_path, searchable[1], "-bbox", "-f", "1", "-l", "1")
    boxes = {
        match.group(5): tuple(float(match.group(n)) for n in range(1, 5))
        for match in re.finditer(r'xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]+)<', html)
    }
    points = 72 / 200
    for word in ("quick", "Invoice", "Searchable"):
        left, _, right, bottom = (value * points for value in SCAN.boxes[word])
        x_min, _, x_max, y_max = boxes[word]
        assert abs(x_min - left) < 3 and abs(x_max - right) < 3
        assert abs(y_max - bottom) < 6


def test_searchable_pdf_keeps_page_images_byte_for_byte(tmp_path: Path, searchable: tuple[bytes, bytes]) -> None:
    pdfimages = require_tool("pdfimages")
    listings = []
    extracted = []
    for name, data in zip(("before", "after"), searchable, strict=True):
        path = tmp_path / f"{name}.pdf"
        path.write_bytes(data)
        listing = subprocess.run([pdfimages, "-list", str(path)], capture_output=True, check=True).stdout.decode()
        listings.append([line.split()[:13] for line in listing.splitlines()[2:]])
        subprocess.run([pdfimages, "-j", str(path), str(tmp_path / name)], check=True)
        extracted.append(sorted(p.read_bytes() for p in tmp_path.glob(f"{name}-*.jpg")))
    assert len(listings[0]) == 2
    assert [row[:9] for row in listings[0]] == [row[:9] for row in listings[1]]  # page, size, colour, encoding
    assert extracted[0] == extracted[1]
    before, after = (pikepdf.Pdf.open(io.BytesIO(data)) for data in searchable)
    for old, new in zip(before.pages, after.pages, strict=True):
        assert new.Resources.XObject.Im0.read_raw_bytes() == old.Resources.XObject.Im0.read_raw_bytes()
        old_content = old.Contents.read_raw_bytes()
        assert any(stream.read_raw_bytes() == old_content for stream in new.Contents)


def test_searchable_pdf_text_is_invisible_and_valid(tmp_path: Path, searchable: tuple[bytes, bytes]) -> None:
    path = tmp_path / "out.pdf"
    path.write_bytes(searchable[1])
    fonts = subprocess.run([require_tool("pdffonts"), str(path)], capture_output=True, check=True).stdout.decode()
    assert "Type 3" in fonts and re.search(r"Type 3\s+Custom\s+yes\s+no\s+yes", fonts)  # with a ToUnicode map
    check = subprocess.run([require_tool("qpdf"), "--check", str(path)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    with pikepdf.Pdf.open(path) as pdf:
        forms = pdf.pages[0].Resources.XObject
        layer = next(form for name, form in forms.items() if name.startswith("/OCR"))
        assert b"3 Tr" in layer.read_bytes()


def test_searchable_pdf_of_a_rotated_page_reads_with_pdftotext(tmp_path: Path) -> None:
    """/Rotate 90: the image is drawn on its side in user space and shown upright; the words follow it."""
    sideways = SCAN.image.rotate(90, expand=True)  # counter-clockwise: /Rotate 90 turns it back clockwise
    original = scanned_pdf([sideways], page_size=(792, 612), rotate=90)
    result = pdf_ocr(original)
    assert isinstance(result, bytes)
    text = pdftotext(tmp_path, result)
    assert found_words(text) >= WORDS
    assert LINES[1] in " ".join(text.split())


@pytest.mark.parametrize("rotate", [0, 90], ids=["a page scanned turned", "an upright scan shown turned"])
def test_lines_running_down_the_page_read_with_pdftotext(tmp_path: Path, rotate: int) -> None:
    """The page displays its text turned a quarter clockwise (read top to bottom): Tesseract reads those lines, and
    the layer runs each word down its line (stretched across the box, a word was a sliver 2,000 points long)."""
    image = SCAN.image.rotate(-90, expand=True) if rotate == 0 else SCAN.image
    size = (792, 612) if rotate == 0 else (612, 792)
    result = pdf_ocr(scanned_pdf([image], page_size=size, rotate=rotate))
    assert isinstance(result, bytes)
    text = pdftotext(tmp_path, result)
    assert found_words(text) >= WORDS
    assert LINES[1] in " ".join(text.split())


def test_text_output_gives_each_page(searchable: tuple[bytes, bytes]) -> None:
    result = pdf_ocr(searchable[0], output=OcrOutput.TEXT)
    assert isinstance(result, PdfText)
    assert len(result.pages) == 2
    assert result.text == "\f".join(result.pages)
    assert all(found_words(page) >= WORDS for page in result.pages)


def test_pages_with_text_are_left_alone() -> None:
    original = scanned_pdf([SCAN.image], text="Already searchable")
    text = pdf_ocr(original, output=OcrOutput.TEXT)
    assert isinstance(text, PdfText)
    assert text.pages[1].strip() == "Already searchable"  # its own text, not recognised
    assert found_words(text.pages[0]) >= WORDS
    only_text = scanned_pdf([], text="Already searchable")
    assert pdf_ocr(only_text) == only_text  # nothing to recognise: the input as it came


def test_force_recognises_pages_with_text_too(tmp_path: Path) -> None:
    only_text = scanned_pdf([], text="Already searchable")
    forced = pdf_ocr(only_text, force=True)
    assert isinstance(forced, bytes) and forced != only_text
    path = tmp_path / "forced.pdf"
    path.write_bytes(forced)
    fonts = subprocess.run([require_tool("pdffonts"), str(path)], capture_output=True, check=True).stdout.decode()
    assert "Helvetica" in fonts and "Type 3" in fonts  # the page's own text and the recognised layer
    forced_text = pdf_ocr(only_text, output=OcrOutput.TEXT, force=True)
    assert isinstance(forced_text, PdfText)
    assert forced_text.pages[0].strip() == "Already searchable"


def test_pdf_ocr_refuses_damaged_input() -> None:
    with pytest.raises(InvalidInput, match="not a PDF"):
        pdf_ocr(b"hello")
    with pytest.raises(InvalidInput):
        pdf_ocr(b"%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF")


@pytest.mark.parametrize(
    ("languages", "message"),
    [
        ("fra", "'fra' is not installed; available: eng"),
        ("eng+eng", "twice"),
        ("ENG", "codes such as"),
        ("", "codes such as"),
        ("eng+", "codes such as"),
        ("eng;rm", "codes such as"),
        ("../eng", "codes such as"),
    ],
)
def test_languages_are_checked(languages: str, message: str) -> None:
    with pytest.raises(InvalidInput, match=re.escape(message)):
        parse_languages(languages)
    with pytest.raises(InvalidInput, match=re.escape(message)):
        image_ocr(encoded(SCAN.image), languages=languages)
    with pytest.raises(InvalidInput, match=re.escape(message)):
        pdf_ocr(scanned_pdf([SCAN.image]), languages=languages)


def test_at_most_four_languages() -> None:
    with pytest.raises(InvalidInput):
        parse_languages("eng+deu+fra+spa+ita")


def test_shipped_languages_are_installed_and_in_the_layer() -> None:
    assert installed_languages() == SHIPPED_LANGUAGES
    requirements = (PROJECT_ROOT / "layers" / "requirements.txt").read_text()
    assert sorted(re.findall(r"^tessdata\.fast-(\w+)==", requirements, re.MULTILINE)) == sorted(SHIPPED_LANGUAGES)
    assert parse_languages(" eng ") == "eng"


def test_options_models_are_the_converters_keywords() -> None:
    pdf_options = PdfOcrOptions.model_validate({"output": "text", "languages": "eng", "force": "true"})
    assert pdf_options.model_dump() == {"output": OcrOutput.TEXT, "languages": "eng", "force": True}
    assert ImageOcrOptions.model_validate({}).model_dump() == {"languages": "eng"}


def test_ocr_loads_its_model_with_no_network(tmp_path: Path) -> None:
    """In a network namespace of its own (no interface but loopback, down), the language data still load."""
    unshare = require_tool("unshare")
    image = tmp_path / "scan.png"
    image.write_bytes(encoded(SCAN.image))
    script = (
        "import sys; from fileapi.convert.ocr_image import image_ocr; "
        "print(image_ocr(open(sys.argv[1], 'rb').read()).blocks[0].text)"
    )
    if subprocess.run([unshare, "-n", "true"], capture_output=True).returncode != 0:
        pytest.skip("unshare -n is not permitted here (it needs root or user namespaces)")
    result = subprocess.run([unshare, "-n", sys.executable, "-c", script, str(image)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == LINES[0]
