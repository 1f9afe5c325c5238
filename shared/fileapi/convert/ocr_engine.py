"""Optical character recognition with Tesseract (tesserocr's wheel ships libtesseract), over greyscale pixels.

The language data are the `tessdata.fast-<lang>` packages' `*.traineddata` files, found beside the installed
packages (`<prefix>/share/tessdata`: the virtual environment's prefix, or a layer's `/opt/python`), never
fetched. Chosen over RapidOCR by measurement (bench/ocr.py, docs/architecture.md "OCR"): on noisy pages
rendered from the corpus at 150 and 300 dpi its character error rate was half RapidOCR's and its CPU time a
page a seventh, and it adds 20 MB to the layer where RapidOCR with onnxruntime and OpenCV adds 219-299 MB.
"""

from __future__ import annotations

import re
import sys
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fileapi.convert import deadline
from fileapi.convert.ocr_options import DEFAULT_LANGUAGES, MAX_LANGUAGES
from fileapi.errors import InternalError, InvalidInput, TooLarge

if TYPE_CHECKING:
    from PIL import Image

# One OCR page: 40 MP is an A3 sheet at 400 dpi. Four dense text pages tiled into one 35 MP image took 8.0 s
# of CPU and a 273 MiB peak (the blank 40 MP image 362 MiB), within a worker's memory and a request's time.
MAX_OCR_PIXELS = 40_000_000
_LANGUAGE = re.compile(r"[a-z]{3}(?:_[a-z]{2,8})?")
_RESOLUTION_RANGE = (70, 2400)  # dpi Tesseract trusts; outside it, it estimates from the text size


@dataclass(frozen=True)
class OcrWord:
    """One recognised word: its text, its box in pixels (left, top, right, bottom; right and bottom
    exclusive, origin at the top left), Tesseract's confidence (0-100), the index of its line, and that
    line's height (Tesseract's row height: the font's size, the same on every line of one size) and
    baseline (two points (x, y)), in pixels, which all its words share."""

    text: str
    box: tuple[int, int, int, int]
    confidence: float
    line: int
    line_height: float
    baseline: tuple[tuple[int, int], tuple[int, int]]


@dataclass(frozen=True)
class OcrPage:
    """What one image holds: its text (lines joined by newlines, paragraphs by a blank line) and its words."""

    text: str
    words: tuple[OcrWord, ...]


def tessdata_dir() -> Path | None:
    """The first `share/tessdata` with language data: under the interpreter's prefix (a virtual environment)
    or under an entry of sys.path (a Lambda layer's /opt/python, or `pip install --target`)."""
    candidates = [Path(sys.prefix), *(Path(entry) for entry in sys.path if entry)]
    for base in candidates:
        folder = base / "share" / "tessdata"
        if any(folder.glob("*.traineddata")):
            return folder
    return None


@lru_cache(maxsize=1)
def installed_languages() -> tuple[str, ...]:
    """The languages whose data are installed, sorted (`osd`, orientation detection, is not a language)."""
    folder = tessdata_dir()
    if folder is None:
        return ()
    return tuple(sorted(path.stem for path in folder.glob("*.traineddata") if path.stem != "osd"))


def parse_languages(languages: str) -> str:
    """Check a `+`-joined list of Tesseract language codes ('eng', 'eng+deu') against those installed.

    :returns: the list as Tesseract takes it.
    :raises InvalidInput: empty, malformed, repeated, more than 4, or a language that is not installed
        (the message lists those that are).
    """
    names = languages.strip().split("+")
    available = installed_languages()
    for name in names:
        if not _LANGUAGE.fullmatch(name):
            raise InvalidInput(f"languages must be codes such as 'eng' or 'eng+deu' joined by '+', not {languages!r}")
        if name not in available:
            raise InvalidInput(f"language {name!r} is not installed; available: {', '.join(available) or 'none'}")
    if len(set(names)) != len(names):
        raise InvalidInput(f"languages names a language twice: {languages!r}")
    if len(names) > MAX_LANGUAGES:
        raise InvalidInput(f"at most {MAX_LANGUAGES} languages at once, not {len(names)}")
    return "+".join(names)


def check_ocr_pixels(size: tuple[int, int], *, what: str) -> None:
    """:raises TooLarge: `what` would be over MAX_OCR_PIXELS to recognise (the message gives both)."""
    width, height = size
    if width * height > MAX_OCR_PIXELS:
        raise TooLarge(
            f"{what} is {width}x{height} = {width * height:,} pixels, over the OCR limit of {MAX_OCR_PIXELS:,} "
            "pixels; send a smaller image or a lower resolution"
        )


class _Engine:
    """One loaded Tesseract for a language list. Its API object keeps state between calls, so one call at
    a time (each conversion worker runs one conversion at a time; the lock keeps threads honest)."""

    def __init__(self, languages: str) -> None:
        import tesserocr

        folder = tessdata_dir()
        if folder is None:
            raise InternalError("no OCR language data are installed")
        self.lock = threading.Lock()
        self.api: Any = tesserocr.PyTessBaseAPI(path=str(folder), lang=languages, psm=tesserocr.PSM.AUTO)


@lru_cache(maxsize=2)
def _engine(languages: str) -> _Engine:
    return _Engine(languages)


def recognise(image: Image.Image, *, languages: str = DEFAULT_LANGUAGES, dpi: float | None = None) -> OcrPage:
    """Recognise the text of an image.

    :param image: any mode; recognised as 8-bit greyscale.
    :param languages: a `+`-joined list, as `parse_languages` accepts.
    :param dpi: the image's resolution when known (70..2400; otherwise Tesseract estimates it).
    :raises InvalidInput: bad languages.
    :raises TooLarge: more than MAX_OCR_PIXELS, or the conversion's time budget is spent.
    """
    check_ocr_pixels(image.size, what="the image")
    engine = _engine(parse_languages(languages))
    grey = _on_white(image).convert("L") if image.mode != "L" else image
    deadline.check()
    with engine.lock:
        api = engine.api
        # raw pixels: tesserocr's SetImage(PIL image) encodes a PNG first (1.2 s of a 300-dpi page's 2.5 s)
        api.SetImageBytes(grey.tobytes(), grey.width, grey.height, 1, grey.width)
        if dpi is not None and _RESOLUTION_RANGE[0] <= dpi <= _RESOLUTION_RANGE[1]:
            api.SetSourceResolution(round(dpi))
        api.Recognize()
        text = api.GetUTF8Text()
        words = _words(api.GetIterator())
        api.Clear()
    return OcrPage(text=text.strip(), words=tuple(words))


def _on_white(image: Image.Image) -> Image.Image:
    """The image over a white page: transparent pixels (often stored as black) would otherwise read as ink."""
    if image.mode not in ("RGBA", "LA", "PA", "P") and "transparency" not in image.info:
        return image
    from PIL import Image

    rgba = image.convert("RGBA")
    page = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    return Image.alpha_composite(page, rgba)


def _words(iterator: Any) -> list[OcrWord]:
    import tesserocr

    words: list[OcrWord] = []
    if iterator is None:  # nothing recognised
        return words
    line, line_height, baseline = -1, 1.0, ((0, 0), (1, 0))
    level, row = tesserocr.RIL.WORD, tesserocr.RIL.TEXTLINE
    for element in tesserocr.iterate_level(iterator, level):
        if element.Empty(level):
            continue
        if element.IsAtBeginningOf(row) or line < 0:
            line += 1
            line_box = element.BoundingBox(row)
            line_height = float(element.RowAttributes().get("row_height") or 0) or (
                line_box[3] - line_box[1] if line_box else 1.0
            )
            baseline = element.Baseline(row) or baseline
        text = (element.GetUTF8Text(level) or "").strip()
        box = element.BoundingBox(level)
        if not text or box is None:
            continue
        confidence = round(float(element.Confidence(level)), 2)
        words.append(OcrWord(text, tuple(box), confidence, line, line_height, baseline))
    return words
