"""Images to one PDF, a page each, without losing a pixel.

How each image goes in:
- JPEG (baseline or progressive, 8 bits) and JPEG 2000: its bytes as they are (DCTDecode, JPXDecode), never
  re-encoded; an EXIF orientation is the drawing's transform, so the file stays as it came.
- PNG that is not interlaced, has no alpha channel and no transparency: its compressed pixel data as it is
  (FlateDecode with the PNG predictors, 1 to 16 bits, grey, colour or a palette), never decompressed.
- Anything else (PNG with alpha or interlacing, WebP, HEIC, AVIF, GIF, BMP, TIFF): decoded, and its pixels
  written losslessly as PNG-predicted Flate; an alpha channel becomes a soft mask (SMask).
An ICC profile goes with the pixels it describes (ICCBased).

Page sizes: `auto` is the image's own size at its resolution (its DPI; 96 when it has none), at most 200 inches
a side (PDF's largest page: a larger one is scaled down to fit); `a4` and `letter` turn to the image's
orientation (a landscape image on a landscape page), and the image is scaled to fit, centred.

The PDF is written directly (one object per image, page and content stream), so the time is reading the
images' headers and copying their bytes (`make bench`, the images-to-PDF row, against img2pdf).
"""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING

from fileapi.convert import deadline
from fileapi.convert.pdf_options import ImagePageSize
from fileapi.convert.pixel_modes import SIXTEEN_BIT_GREY, eight_bit
from fileapi.errors import InvalidInput, TooLarge

if TYPE_CHECKING:
    from PIL import Image

MAX_IMAGES = 1_000
PDF_SIXTEEN_BIT = ("I;16", "I;16B")  # 16-bit grey written in 16 bits (Pillow's PNG encoder takes these two)
DEFAULT_DPI = 96.0
MAX_PAGE_POINTS = 14_400.0  # 200 inches: the largest page PDF 1.7 allows (Annex C)
MIN_PAGE_POINTS = 3.0  # the smallest (Annex C): a narrower image is centred on a page this wide
POINTS_PER_INCH = 72.0


_PAPER = {ImagePageSize.A4: (595.2756, 841.8898), ImagePageSize.LETTER: (612.0, 792.0)}
# EXIF orientation -> the displayed unit square's (s, t) from the stored image's (u, v) (v up): s = su*u + sv*v
# + s0, t = tu*u + tv*v + t0, as (su, sv, s0, tu, tv, t0). 5 to 8 stand the image on its side.
_ORIENTATION = {
    1: (1, 0, 0, 0, 1, 0),
    2: (-1, 0, 1, 0, 1, 0),
    3: (-1, 0, 1, 0, -1, 1),
    4: (1, 0, 0, 0, -1, 1),
    5: (0, -1, 1, -1, 0, 1),
    6: (0, 1, 0, -1, 0, 1),
    7: (0, 1, 0, 1, 0, 0),
    8: (0, -1, 1, 1, 0, 0),
}
_JPEG_SOF_EMBEDDED = {0xC0, 0xC1, 0xC2}  # baseline, extended and progressive Huffman: what DCTDecode reads
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PNG_COLOURS = {0: 1, 2: 3, 3: 1}  # colour type -> components, for the types embedded as they are
# An ICC profile's colour space (bytes 16..19 of its header) -> the device space it stands for.
_ICC_DEVICES = {b"GRAY": b"/DeviceGray", b"RGB ": b"/DeviceRGB", b"CMYK": b"/DeviceCMYK"}
_COMPONENTS = {b"/DeviceGray": 1, b"/DeviceRGB": 3, b"/DeviceCMYK": 4}


@dataclass(frozen=True)
class _Raster:
    """One image's XObject: its dictionary entries but the colour space (PDF syntax), its colour space (None: the
    JPEG 2000 stream's own), data, ICC profile (it replaces the device space it describes) and soft mask."""

    width: int
    height: int
    entries: bytes
    data: bytes
    space: bytes | None
    icc: bytes | None = None
    smask: _Raster | None = None


@dataclass(frozen=True)
class _Placed:
    raster: _Raster
    dpi: tuple[float, float]
    orientation: int = 1


def images_to_pdf(images: list[bytes], *, page_size: ImagePageSize = ImagePageSize.AUTO) -> bytes:
    """One PDF of `images` (1..1,000, in order), a page each (see the module for how each goes in).

    :param page_size: auto (the image's size at its DPI, 96 when none), a4 or letter (fitted and centred,
        turned to the image's orientation).
    :raises InvalidInput: no image, or one that is empty or damaged (naming its position).
    :raises UnsupportedFormat: a file that is not an image read here.
    :raises TooLarge: more than 1,000 images, or one over 50 megapixels.
    """
    out = io.BytesIO()
    _write(out, images, page_size)
    return out.getvalue()


def images_to_pdf_file(sources: list[str], out: str, *, page_size: ImagePageSize = ImagePageSize.AUTO) -> None:
    """The image files `sources` into one PDF file `out`, as `images_to_pdf` does; one image is read at a time."""
    with open(out, "wb") as target:
        _write(target, [Path(source) for source in sources], page_size)


def _write(target: IO[bytes], images: Sequence[bytes | Path], page_size: ImagePageSize) -> None:
    if not images:
        raise InvalidInput("send at least one image")
    if len(images) > MAX_IMAGES:
        raise TooLarge(f"{len(images):,} images; at most {MAX_IMAGES:,} to one PDF")
    from fileapi.convert.image_io import load_pillow

    page_size = ImagePageSize(page_size)
    load_pillow()
    writer = _Writer(target)
    pages = []
    for position, image in enumerate(images, start=1):
        deadline.check()
        data = image.read_bytes() if isinstance(image, Path) else image
        placed = _prepared(data, f"image {position}")
        pages.append(writer.page(placed, page_size))
    writer.finish(pages)


def _prepared(data: bytes, what: str) -> _Placed:
    if not data:
        raise InvalidInput(f"{what} is empty")
    try:
        if data[:3] == b"\xff\xd8\xff":
            placed = _jpeg(data, what)
        elif data[:12] == b"\x00\x00\x00\x0cjP  \r\n\x87\n" or data[:4] == b"\xff\x4f\xff\x51":
            placed = _jpeg2000(data, what)
        elif data[:8] == _PNG_SIGNATURE:
            placed = _png(data, what)
        else:
            placed = None
    except TooLarge:
        raise
    except (OSError, ValueError, SyntaxError, struct.error, EOFError, IndexError) as exc:
        raise InvalidInput(f"{what} is damaged: its header cannot be read ({type(exc).__name__})") from None
    return placed or _decoded(data, what)


def _opened(data: bytes, what: str) -> Image.Image:
    from PIL import Image

    from fileapi.convert.image_io import MAX_INPUT_PIXELS, check_pixels

    image = Image.open(io.BytesIO(data))
    check_pixels(image.size, limit=MAX_INPUT_PIXELS, what=what)
    return image


def _dpi(image: Image.Image) -> tuple[float, float]:
    """The image's resolution when it gives a plausible one (1..100,000 per inch each way), else 96."""
    found = image.info.get("dpi")
    try:
        x, y = float(found[0]), float(found[1])  # type: ignore[index]
    except (TypeError, ValueError, IndexError):
        return DEFAULT_DPI, DEFAULT_DPI
    if not (1 <= x <= 100_000 and 1 <= y <= 100_000) or (x, y) == (1.0, 1.0):  # (1, 1): a JFIF aspect ratio
        return DEFAULT_DPI, DEFAULT_DPI
    return round(x, 2), round(y, 2)  # a PNG's 300 dpi is 11,811 per metre: 299.9994


def _jpeg(data: bytes, what: str) -> _Placed | None:
    image = _opened(data, what)
    if _jpeg_frame_type(data) not in _JPEG_SOF_EMBEDDED or image.mode not in ("L", "RGB", "CMYK"):
        return None  # arithmetic-coded, lossless or 12-bit: decoded instead
    components = {"L": 1, "RGB": 3, "CMYK": 4}[image.mode]
    space = {1: b"/DeviceGray", 3: b"/DeviceRGB", 4: b"/DeviceCMYK"}[components]
    # Adobe's CMYK JPEGs store inverted ink (Photoshop's convention, which every reader assumes).
    decode = b" /Decode [1 0 1 0 1 0 1 0]" if components == 4 and "adobe" in image.info else b""
    entries = b"/BitsPerComponent 8 /Filter /DCTDecode" + decode
    raster = _Raster(image.width, image.height, entries, data, space, _icc(image))
    orientation = image.getexif().get(0x0112, 1)
    return _Placed(raster, _dpi(image), orientation if orientation in _ORIENTATION else 1)


def _jpeg_frame_type(data: bytes) -> int | None:
    """The marker of the JPEG's first frame header (SOFn), walking the segments before it."""
    position = 2
    while position + 4 <= len(data):
        if data[position] != 0xFF:
            return None
        marker = data[position + 1]
        if marker == 0xFF:
            position += 1
            continue
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return marker if data[position + 4] == 8 else None  # sample precision 8
        (length,) = struct.unpack(">H", data[position + 2 : position + 4])
        position += 2 + length
    return None


def _jpeg2000(data: bytes, what: str) -> _Placed:
    image = _opened(data, what)
    # A JPX stream carries its own colour space and bit depth (PDF 1.7, 7.4.9): none is given here.
    return _Placed(_Raster(image.width, image.height, b"/Filter /JPXDecode", data, None), _dpi(image))


def _png(data: bytes, what: str) -> _Placed | None:
    image = _opened(data, what)
    header, palette, idat = _png_chunks(data)
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    if colour not in _PNG_COLOURS or interlace or "transparency" in image.info:
        return None
    if depth not in (1, 2, 4, 8, 16) or (colour == 2 and depth < 8) or (colour == 3 and depth > 8):
        raise InvalidInput(f"{what} is damaged: a PNG of colour type {colour} cannot have {depth}-bit samples")
    if colour == 3:
        if not palette or len(palette) % 3:
            raise InvalidInput(f"{what} is damaged: its palette is missing or malformed")
        space = b"[/Indexed /DeviceRGB %d <" % (len(palette) // 3 - 1) + palette.hex().encode() + b">]"
    else:
        space = b"/DeviceGray" if colour == 0 else b"/DeviceRGB"
    entries = b"/BitsPerComponent %d /Filter /FlateDecode " % depth + _predictor(width, _PNG_COLOURS[colour], depth)
    return _Placed(_Raster(width, height, entries, idat, space, _icc(image)), _dpi(image))


def _png_chunks(data: bytes) -> tuple[bytes, bytes, bytes]:
    """The PNG's IHDR data, PLTE data, and its IDAT data joined (one zlib stream)."""
    header = palette = b""
    idat: list[bytes] = []
    position = 8
    while position + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[position : position + 8])
        body = data[position + 8 : position + 8 + length]
        if len(body) < length:
            raise EOFError("a chunk runs past the end")
        if kind == b"IHDR":
            header = body
        elif kind == b"PLTE":
            palette = body
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        position += 12 + length
    if len(header) != 13 or not idat:
        raise EOFError("no IHDR or no IDAT")
    return header, palette, b"".join(idat)


def _predictor(width: int, colours: int, depth: int) -> bytes:
    return b"/DecodeParms << /Predictor 15 /Colors %d /BitsPerComponent %d /Columns %d >>" % (colours, depth, width)


def _decoded(data: bytes, what: str) -> _Placed:
    """Any image Pillow reads, decoded as shown (orientation applied) and written as PNG-predicted Flate."""
    from fileapi.convert.image_io import open_image
    from fileapi.errors import ApiError

    try:
        image = open_image(data)
    except ApiError as error:
        error.message = f"{what}: {error.message}"
        raise
    dpi = _dpi(image)
    icc = _icc(image)
    if image.mode in SIXTEEN_BIT_GREY and (image.mode not in PDF_SIXTEEN_BIT or "transparency" in image.info):
        image = eight_bit(image)  # L, or LA for a colour key; big- or little-endian 16-bit grey is written as it is
    if "transparency" in image.info and image.mode in ("P", "L", "RGB"):
        image = image.convert("RGBA")  # a palette's or a colour key's transparency becomes an alpha channel
    elif image.mode == "P":
        image = image.convert("RGB")
    if image.mode in ("PA", "La"):
        image = image.convert("RGBA" if image.mode == "PA" else "LA")
    if image.mode == "RGBa":
        image = image.convert("RGBA")
    alpha = None
    if image.mode in ("RGBA", "LA"):
        alpha = image.getchannel("A")
        image = image.convert("RGB" if image.mode == "RGBA" else "L")
        if alpha.getextrema() == (255, 255):
            alpha = None  # fully opaque: no mask
    if image.mode not in ("1", "L", "RGB", *PDF_SIXTEEN_BIT):
        image = image.convert("L" if image.mode == "F" else "RGB")  # 32-bit grey (I) is L already: eight_bit
    raster = _flate(image, what)
    mask = _flate(alpha, what) if alpha is not None else None
    return _Placed(replace(raster, icc=icc if image.mode in ("L", "RGB") else None, smask=mask), dpi)


def _flate(image: Image.Image, what: str) -> _Raster:
    """`image`'s pixels as PNG-predicted Flate: Pillow's PNG encoder (its adaptive filters), without the file."""
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=6)
    png = _png(out.getvalue(), what)
    if png is None:
        raise InvalidInput(f"{what} could not be written losslessly")
    return replace(png.raster, icc=None)


def _icc(image: Image.Image) -> bytes | None:
    profile = image.info.get("icc_profile")
    return profile if isinstance(profile, bytes) and profile else None


class _Writer:
    """A PDF written object by object: the catalog is object 1, the page tree object 2 (written last)."""

    def __init__(self, target: IO[bytes]) -> None:
        self.target = target
        self.offsets: dict[int, int] = {}
        self.start = target.tell()
        self.next_number = 3
        target.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")

    def _object(self, body: bytes, stream: bytes | None = None, number: int | None = None) -> int:
        if number is None:
            number, self.next_number = self.next_number, self.next_number + 1
        self.offsets[number] = self.target.tell() - self.start
        self.target.write(b"%d 0 obj\n" % number)
        if stream is None:
            self.target.write(body + b"\nendobj\n")
        else:
            self.target.write(b"<< %s /Length %d >>\nstream\n" % (body, len(stream)))
            self.target.write(stream)
            self.target.write(b"\nendstream\nendobj\n")
        return number

    def _image(self, raster: _Raster) -> int:
        entries = raster.entries
        space = raster.space
        device = _ICC_DEVICES.get(raster.icc[16:20]) if raster.icc is not None else None
        if space is not None and raster.icc is not None and device is not None and device in space:
            profile = self._object(b"/N %d /Filter /FlateDecode" % _COMPONENTS[device], zlib.compress(raster.icc))
            space = space.replace(device, b"[/ICCBased %d 0 R]" % profile, 1)
        if space is not None:
            entries += b" /ColorSpace " + space
        if raster.smask is not None:
            entries += b" /SMask %d 0 R" % self._image(raster.smask)
        body = b"/Type /XObject /Subtype /Image /Width %d /Height %d " % (raster.width, raster.height) + entries
        return self._object(body, raster.data)

    def page(self, placed: _Placed, page_size: ImagePageSize) -> int:
        raster = placed.raster
        sideways = placed.orientation >= 5
        shown = (raster.height, raster.width) if sideways else (raster.width, raster.height)
        width, height, box = _layout(shown, placed.dpi[::-1] if sideways else placed.dpi, page_size)
        su, sv, s0, tu, tv, t0 = _ORIENTATION[placed.orientation]
        x, y, w, h = box
        matrix = (w * su, h * tu, w * sv, h * tv, x + w * s0, y + h * t0)
        content = b"q %s cm /Im0 Do Q" % b" ".join(_number(value) for value in matrix)
        image = self._image(raster)
        stream = self._object(b"", content)
        return self._object(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %s %s] /Resources << /XObject << /Im0 %d 0 R >> >> "
            b"/Contents %d 0 R >>" % (_number(width), _number(height), image, stream)
        )

    def finish(self, pages: Iterable[int]) -> None:
        kids = list(pages)
        self._object(b"<< /Type /Catalog /Pages 2 0 R >>", number=1)
        refs = b" ".join(b"%d 0 R" % kid for kid in kids)
        self._object(b"<< /Type /Pages /Kids [%s] /Count %d >>" % (refs, len(kids)), number=2)
        xref = self.target.tell() - self.start
        size = self.next_number
        self.target.write(b"xref\n0 %d\n0000000000 65535 f \n" % size)
        self.target.write(b"".join(b"%010d 00000 n \n" % self.offsets[number] for number in range(1, size)))
        self.target.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (size, xref))


def _layout(
    shown: tuple[int, int], dpi: tuple[float, float], page_size: ImagePageSize
) -> tuple[float, float, tuple[float, float, float, float]]:
    """The page's width and height, and the image's box (x, y, width, height) on it, in points."""
    natural_w = shown[0] * POINTS_PER_INCH / dpi[0]
    natural_h = shown[1] * POINTS_PER_INCH / dpi[1]
    if page_size is ImagePageSize.AUTO:
        scale = min(1.0, MAX_PAGE_POINTS / natural_w, MAX_PAGE_POINTS / natural_h)
        w, h = natural_w * scale, natural_h * scale
        width, height = max(w, MIN_PAGE_POINTS), max(h, MIN_PAGE_POINTS)
        return width, height, ((width - w) / 2, (height - h) / 2, w, h)
    short, long = _PAPER[page_size]
    width, height = (long, short) if natural_w > natural_h else (short, long)
    scale = min(width / natural_w, height / natural_h)
    w, h = natural_w * scale, natural_h * scale
    return width, height, ((width - w) / 2, (height - h) / 2, w, h)


def _number(value: float) -> bytes:
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return (text if text not in ("", "-0") else "0").encode()
