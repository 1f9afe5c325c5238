"""PDF editing with pikepdf: watermark, protect (AES-256), compress."""

from __future__ import annotations

import io
import math
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fileapi.convert import deadline
from fileapi.convert.pages import parse_pages
from fileapi.convert.pdf_active import remove_active_content
from fileapi.convert.pdf_errors import reading
from fileapi.convert.pdf_io import Source, open_pdf, save_pdf, write_pdf
from fileapi.errors import InvalidInput

if TYPE_CHECKING:
    import pikepdf

# Helvetica advance widths (AFM, 1/1000 em) for ASCII 32..126; other Latin-1 characters use 556.
_HELVETICA = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
]  # fmt: skip
DEFAULT_OPACITY = 0.3
DEFAULT_ROTATION = 45.0
MAX_WATERMARK_CHARS = 200
# watermark_pdf's defaults, for the variant over files (its options by keyword)
WATERMARK_DEFAULTS: dict[str, Any] = {
    "opacity": DEFAULT_OPACITY, "rotation": DEFAULT_ROTATION, "font_size": None, "pages": None,
    "keep_active_content": False,
}  # fmt: skip


def text_width(text: str, font_size: float) -> float:
    """Width in points of `text` in Helvetica at `font_size`."""
    units = sum(_HELVETICA[ord(c) - 32] if 32 <= ord(c) <= 126 else 556 for c in text)
    return units * font_size / 1000


def watermark_pdf(
    data: bytes,
    *,
    text: str,
    opacity: float = DEFAULT_OPACITY,
    rotation: float = DEFAULT_ROTATION,
    font_size: float | None = None,
    pages: str | None = None,
    keep_active_content: bool = False,
) -> bytes:
    """Draw `text` centred on the chosen pages (default all), as real text in Helvetica (a standard
    font, so pdftotext finds it), grey, at `opacity` (0-1), turned `rotation` degrees counter-clockwise.

    :param font_size: points (>= 1); default: the text spans about 60% of the page's diagonal.
    :param keep_active_content: keep JavaScript, automatic and launch actions and embedded files (default:
        removed, see fileapi.convert.pdf_active).
    :raises InvalidInput: empty or non-Latin-1 text, or options out of range.
    """
    return save_pdf(_watermarked(data, text, opacity, rotation, font_size, pages, keep_active_content))


def watermark_pdf_file(source: str, out: str, **options: Any) -> None:
    """The file `source` watermarked as `watermark_pdf` does (its keyword options) into `out`, read and written on
    disk: the pages' own streams are copied, never held whole, so memory follows the pages, not the bytes."""
    write_pdf(_watermarked(Path(source), **{**WATERMARK_DEFAULTS, **options}), Path(out))


def _watermarked(
    source: Source,
    text: str,
    opacity: float,
    rotation: float,
    font_size: float | None,
    pages: str | None,
    keep_active_content: bool,
) -> pikepdf.Pdf:
    """The document with the watermark drawn (the options checked first)."""
    if not text.strip() or len(text) > MAX_WATERMARK_CHARS:
        raise InvalidInput(f"text must be 1..{MAX_WATERMARK_CHARS} characters")
    try:
        encoded = text.encode("cp1252")
    except UnicodeEncodeError:
        raise InvalidInput(
            "watermark text must be in the Windows-1252 (Latin) character set: the standard PDF fonts cover no more"
        ) from None
    if not 0 <= opacity <= 1:
        raise InvalidInput(f"opacity must be 0..1, not {opacity}")
    if font_size is not None and font_size < 1:
        raise InvalidInput(f"fontSize must be >= 1, not {font_size}")
    if not math.isfinite(rotation):
        raise InvalidInput("rotation must be a number of degrees")
    pdf = open_pdf(source)
    with reading():
        _draw_watermark(pdf, text, encoded, opacity, rotation, font_size, pages)
    if not keep_active_content:
        remove_active_content(pdf)
    return pdf


def _draw_watermark(
    pdf: pikepdf.Pdf,
    text: str,
    encoded: bytes,
    opacity: float,
    rotation: float,
    font_size: float | None,
    pages: str | None,
) -> None:
    import pikepdf

    font = pdf.make_indirect(
        pikepdf.Dictionary(
            Type=pikepdf.Name.Font,
            Subtype=pikepdf.Name.Type1,
            BaseFont=pikepdf.Name.Helvetica,
            Encoding=pikepdf.Name.WinAnsiEncoding,
        )
    )
    state = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.ExtGState, ca=opacity, CA=opacity))
    literal = encoded.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")
    angle = math.radians(rotation)
    cos, sin = math.cos(angle), math.sin(angle)
    for number in parse_pages(pages, len(pdf.pages)):
        deadline.check()
        page = pdf.pages[number - 1]
        box = [float(v) for v in page.mediabox]
        width, height = box[2] - box[0], box[3] - box[1]
        size = font_size or max(1.0, 0.6 * math.hypot(width, height) / max(text_width(text, 1.0), 0.001))
        centre_x, centre_y = box[0] + width / 2, box[1] + height / 2
        font_name = page.add_resource(font, pikepdf.Name.Font, prefix="FWm")
        state_name = page.add_resource(state, pikepdf.Name.ExtGState, prefix="GWm")
        stream = (
            (
                f"q {state_name} gs 0.5 g BT {font_name} {size:.2f} Tf "
                f"{cos:.5f} {sin:.5f} {-sin:.5f} {cos:.5f} {centre_x:.2f} {centre_y:.2f} Tm "
                f"{-text_width(text, size) / 2:.2f} {-size * 0.35:.2f} Td ("
            ).encode("ascii")
            + literal
            + b") Tj ET Q"
        )
        page.contents_add(pdf.make_stream(b"q\n"), prepend=True)
        page.contents_add(pdf.make_stream(b"\nQ\n" + stream))


def protect_pdf(
    data: bytes,
    *,
    user_password: str,
    owner_password: str | None = None,
    allow_printing: bool = True,
    allow_copying: bool = True,
    allow_modifying: bool = False,
    keep_active_content: bool = False,
) -> bytes:
    """Encrypt with AES-256 (revision 6).

    :param user_password: needed to open the document (1..128 characters).
    :param owner_password: grants full rights; default a random secret, so the restrictions hold.
    :param keep_active_content: keep JavaScript, automatic and launch actions and embedded files (default:
        removed, see fileapi.convert.pdf_active).
    :raises InvalidInput: missing or over-long passwords, or an input that is itself protected.
    """
    import pikepdf

    for name, value in (("userPassword", user_password), ("ownerPassword", owner_password)):
        if value is not None and not 1 <= len(value) <= 128:
            raise InvalidInput(f"{name} must be 1..128 characters")
    pdf = open_pdf(data)
    if not keep_active_content:
        remove_active_content(pdf)
    permissions = pikepdf.Permissions(
        accessibility=True,
        extract=allow_copying,
        modify_annotation=allow_modifying,
        modify_assembly=allow_modifying,
        modify_form=allow_modifying,
        modify_other=allow_modifying,
        print_lowres=allow_printing,
        print_highres=allow_printing,
    )
    out = io.BytesIO()
    with reading():
        pdf.save(
            out,
            encryption=pikepdf.Encryption(
                user=user_password, owner=owner_password or secrets.token_urlsafe(24), R=6, allow=permissions
            ),
        )
    return out.getvalue()


@dataclass(frozen=True)
class CompressResult:
    data: bytes
    originalSize: int
    compressedSize: int
    savedPercent: float


@dataclass(frozen=True)
class Compression:
    """What a compression wrote: the input's size, the rewritten document's, and whether active content was
    removed (then the input itself cannot be the answer, even when smaller)."""

    original_size: int
    rewritten_size: int
    removed: bool

    @property
    def kept_input(self) -> bool:
        """Whether the answer is the input itself (the rewrite is not smaller, and removed nothing)."""
        return self.rewritten_size >= self.original_size and not self.removed

    @property
    def compressed_size(self) -> int:
        return self.original_size if self.kept_input else self.rewritten_size

    @property
    def saved_percent(self) -> float:
        if self.rewritten_size >= self.original_size:
            return 0.0
        return round(100 * (self.original_size - self.rewritten_size) / self.original_size, 1)


def compress_pdf(
    data: bytes, *, strip_metadata: bool = False, image_max_side: int | None = None, keep_active_content: bool = False
) -> CompressResult:
    """Rewrite losslessly (object streams, recompressed streams, unreferenced objects dropped) and,
    when asked, downsample images whose longer side is over `image_max_side` pixels (re-encoded as
    JPEG quality 85) and drop the info dictionary and XMP metadata. Never larger than the input:
    then the input comes back with savedPercent 0 (unless active content was removed from it: then
    the rewritten document, savedPercent 0, even when larger).

    :param keep_active_content: keep JavaScript, automatic and launch actions and embedded files (default:
        removed, see fileapi.convert.pdf_active).
    """
    out = io.BytesIO()
    written = compress_into(
        data,
        out,
        original_size=len(data),
        strip_metadata=strip_metadata,
        image_max_side=image_max_side,
        keep_active_content=keep_active_content,
    )
    document = data if written.kept_input else out.getvalue()
    return CompressResult(document, written.original_size, written.compressed_size, written.saved_percent)


def compress_into(
    source: Source,
    target: Path | io.BytesIO,
    *,
    original_size: int,
    strip_metadata: bool = False,
    image_max_side: int | None = None,
    keep_active_content: bool = False,
) -> Compression:
    """Write the document of `source` (bytes or a file of `original_size` bytes), compressed as `compress_pdf`
    describes, to `target`; what it wrote (the caller answers the input itself when `kept_input`).

    :raises InvalidInput: imageMaxSide out of 16..10000, or not a readable PDF.
    """
    import pikepdf

    if image_max_side is not None and not 16 <= image_max_side <= 10_000:
        raise InvalidInput(f"imageMaxSide must be 16..10000, not {image_max_side}")
    pdf = open_pdf(source)
    removed = 0 if keep_active_content else remove_active_content(pdf)
    with reading():
        if strip_metadata:
            if "/Info" in pdf.trailer:
                del pdf.trailer["/Info"]
            if "/Metadata" in pdf.Root:
                del pdf.Root["/Metadata"]
        if image_max_side is not None:
            _downsample_images(pdf, image_max_side)
        pdf.remove_unreferenced_resources()
        pikepdf.settings.set_flate_compression_level(9)
        try:
            pdf.save(
                target,
                object_stream_mode=pikepdf.ObjectStreamMode.generate,
                compress_streams=True,
                recompress_flate=True,
                stream_decode_level=pikepdf.StreamDecodeLevel.generalized,
            )
        finally:
            pikepdf.settings.set_flate_compression_level(-1)  # back to zlib's default for every other save
    size = target.stat().st_size if isinstance(target, Path) else target.getbuffer().nbytes
    return Compression(original_size, size, bool(removed))


def _downsample_images(pdf: object, max_side: int) -> None:
    import pikepdf
    from PIL import Image

    seen: set[tuple[int, int]] = set()
    for page in pdf.pages:  # type: ignore[attr-defined]
        deadline.check()
        for _, raw in page.get_images().items():
            if raw.objgen in seen:
                continue
            seen.add(raw.objgen)
            try:
                image = pikepdf.PdfImage(raw)
                if max(image.width, image.height) <= max_side or image.bits_per_component != 8:
                    continue
                if raw.get("/SMask") is not None or raw.get("/Mask") is not None:
                    continue
                pil = image.as_pil_image()
            except (pikepdf.PdfError, NotImplementedError, ValueError, OSError):
                continue
            if pil.mode not in ("RGB", "L"):
                continue
            scale = max_side / max(pil.size)
            smaller = pil.resize(
                (max(1, round(pil.width * scale)), max(1, round(pil.height * scale))), Image.Resampling.LANCZOS
            )
            out = io.BytesIO()
            smaller.save(out, "JPEG", quality=85)
            raw.write(out.getvalue(), filter=pikepdf.Name.DCTDecode)
            raw.Width, raw.Height = smaller.width, smaller.height
            raw.ColorSpace = pikepdf.Name.DeviceRGB if smaller.mode == "RGB" else pikepdf.Name.DeviceGray
            raw.BitsPerComponent = 8
            for key in ("/DecodeParms", "/Decode"):
                if key in raw:
                    del raw[key]
