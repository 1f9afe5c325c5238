"""The text of a photo or a scan, line by line with boxes and confidences (Tesseract, `ocr_engine`)."""

from __future__ import annotations

from dataclasses import dataclass

from fileapi.convert.image_io import load_pillow, open_image
from fileapi.convert.ocr_engine import OcrWord, check_ocr_pixels, parse_languages, recognise
from fileapi.convert.ocr_options import DEFAULT_LANGUAGES
from fileapi.convert.pixel_modes import rgb_or_grey


@dataclass(frozen=True)
class BoundingBox:
    """A rectangle in pixels of the image as displayed (EXIF orientation applied), origin at the top left."""

    x: int
    y: int
    width: int
    height: int


@dataclass(frozen=True)
class OcrBlock:
    """One line of text: its words joined by spaces, its box, and the mean of its words' confidences (0-100)."""

    text: str
    bbox: BoundingBox
    confidence: float


@dataclass(frozen=True)
class ImageOcr:
    text: str
    blocks: list[OcrBlock]


def image_ocr(data: bytes, *, languages: str = DEFAULT_LANGUAGES) -> ImageOcr:
    """Recognise the text of an image (JPEG, PNG, WebP, AVIF, HEIC, GIF, BMP or TIFF; the first frame).

    :param languages: Tesseract language codes joined by '+' ('eng', 'eng+deu'); only installed ones.
    :returns: the text (lines joined by newlines, paragraphs by a blank line) and one block per line of
        text, in reading order.
    :raises InvalidInput: bad languages, or a damaged image.
    :raises UnsupportedFormat: not an accepted image format.
    :raises TooLarge: over 40 megapixels (read from the header, before decoding).
    """
    from fileapi.convert.image_decode import identify

    parsed = parse_languages(languages)
    if data:
        load_pillow()
        check_ocr_pixels(identify(data).size, what="the image")  # from the header, before decoding
    image = rgb_or_grey(open_image(data))
    check_ocr_pixels(image.size, what="the image")
    resolution = image.info.get("dpi")
    dpi = float(resolution[0]) if isinstance(resolution, tuple) and resolution else None
    page = recognise(image, languages=parsed, dpi=dpi)
    return ImageOcr(text=page.text, blocks=line_blocks(page.words))


def line_blocks(words: tuple[OcrWord, ...]) -> list[OcrBlock]:
    """One block per line of words (in their order), its box the union of theirs."""
    lines: dict[int, list[OcrWord]] = {}
    for word in words:
        lines.setdefault(word.line, []).append(word)
    blocks = []
    for members in lines.values():
        left = min(word.box[0] for word in members)
        top = min(word.box[1] for word in members)
        right = max(word.box[2] for word in members)
        bottom = max(word.box[3] for word in members)
        confidence = sum(word.confidence for word in members) / len(members)
        blocks.append(
            OcrBlock(
                text=" ".join(word.text for word in members),
                bbox=BoundingBox(left, top, right - left, bottom - top),
                confidence=round(confidence, 1),
            )
        )
    return blocks
