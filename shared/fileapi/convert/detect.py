"""File type detection from the bytes (magic numbers), never from a name or a declared type.

Order: our own signatures for the common formats (canonical MIME types and extensions, and the
containers told apart: Office Open XML and OpenDocument inside ZIP, WebP/WAV/AVI inside RIFF,
AVIF/HEIC/MP4/QuickTime by their ISO-BMFF brand), then puremagic's table, then text sniffing
(SVG, HTML, XHTML, XML, JSON, plain UTF-8 text); anything else is application/octet-stream.
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass

from fileapi.errors import InvalidInput

SNIFF_BYTES = 4096


@dataclass(frozen=True)
class FileType:
    mime: str
    extension: str
    description: str


OCTET_STREAM = FileType("application/octet-stream", "bin", "unknown binary data")

_PREFIXES: tuple[tuple[bytes, FileType], ...] = (
    (b"\x89PNG\r\n\x1a\n", FileType("image/png", "png", "PNG image")),
    (b"\xff\xd8\xff", FileType("image/jpeg", "jpg", "JPEG image")),
    (b"GIF87a", FileType("image/gif", "gif", "GIF image")),
    (b"GIF89a", FileType("image/gif", "gif", "GIF image")),
    (b"%PDF-", FileType("application/pdf", "pdf", "PDF document")),
    (b"BM", FileType("image/bmp", "bmp", "BMP image")),
    (b"II*\x00", FileType("image/tiff", "tif", "TIFF image")),
    (b"MM\x00*", FileType("image/tiff", "tif", "TIFF image")),
    (b"\x00\x00\x01\x00", FileType("image/vnd.microsoft.icon", "ico", "Windows icon")),
    (b"\x8aMNG\r\n\x1a\n", FileType("video/x-mng", "mng", "MNG animation")),
    (b"\x00\x00\x00\x0cjP  \r\n\x87\n", FileType("image/jp2", "jp2", "JPEG 2000 image")),
    (b"\xff\x0a", FileType("image/jxl", "jxl", "JPEG XL image")),
    (b"\x00\x00\x00\x0cJXL \r\n\x87\n", FileType("image/jxl", "jxl", "JPEG XL image")),
    (b"BPG\xfb", FileType("image/bpg", "bpg", "BPG image")),
    (b"8BPS", FileType("image/vnd.adobe.photoshop", "psd", "Photoshop image")),
    (b"\x1f\x8b", FileType("application/gzip", "gz", "gzip compressed data")),
    (b"BZh", FileType("application/x-bzip2", "bz2", "bzip2 compressed data")),
    (b"\xfd7zXZ\x00", FileType("application/x-xz", "xz", "xz compressed data")),
    (b"(\xb5/\xfd", FileType("application/zstd", "zst", "Zstandard compressed data")),
    (b"7z\xbc\xaf'\x1c", FileType("application/x-7z-compressed", "7z", "7-Zip archive")),
    (b"Rar!\x1a\x07\x01\x00", FileType("application/vnd.rar", "rar", "RAR archive (version 5)")),
    (b"Rar!\x1a\x07\x00", FileType("application/vnd.rar", "rar", "RAR archive (version 4)")),
    (b"RE~^", FileType("application/vnd.rar", "rar", "RAR archive (version 1.4)")),
    (b"OggS", FileType("audio/ogg", "ogg", "Ogg media")),
    (b"fLaC", FileType("audio/flac", "flac", "FLAC audio")),
    (b"ID3", FileType("audio/mpeg", "mp3", "MP3 audio")),
    (b"FLV\x01", FileType("video/x-flv", "flv", "Flash video")),
    (b"0&\xb2u\x8ef\xcf\x11", FileType("video/x-ms-asf", "wmv", "Windows Media (ASF) video")),
    (b"\xd7\xcd\xc6\x9a", FileType("image/wmf", "wmf", "Windows metafile")),
    (b"ITSF", FileType("application/vnd.ms-htmlhelp", "chm", "Compiled HTML help")),
    (b"{\\rtf", FileType("application/rtf", "rtf", "RTF document")),
    (b"wOFF", FileType("font/woff", "woff", "WOFF font")),
    (b"wOF2", FileType("font/woff2", "woff2", "WOFF2 font")),
    (b"OTTO", FileType("font/otf", "otf", "OpenType font")),
    (b"\x00\x01\x00\x00\x00", FileType("font/ttf", "ttf", "TrueType font")),
    (b"SQLite format 3\x00", FileType("application/vnd.sqlite3", "sqlite", "SQLite database")),
    (b"\x00asm", FileType("application/wasm", "wasm", "WebAssembly module")),
    (b"\x7fELF", FileType("application/x-elf", "elf", "ELF executable")),
    (b"MZ", FileType("application/vnd.microsoft.portable-executable", "exe", "Windows executable")),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", FileType("application/x-ole-storage", "ole", "OLE2 compound document")),
)

_RIFF = {
    b"WEBP": FileType("image/webp", "webp", "WebP image"),
    b"WAVE": FileType("audio/wav", "wav", "WAV audio"),
    b"AVI ": FileType("video/x-msvideo", "avi", "AVI video"),
}

_BRANDS: tuple[tuple[frozenset[bytes], FileType], ...] = (
    (frozenset({b"avif", b"avis"}), FileType("image/avif", "avif", "AVIF image")),
    (frozenset({b"heic", b"heix", b"heim", b"heis"}), FileType("image/heic", "heic", "HEIC image")),
    (frozenset({b"hevc", b"hevx", b"hevm", b"hevs"}), FileType("image/heic-sequence", "heics", "HEIC sequence")),
    (frozenset({b"mif1", b"msf1"}), FileType("image/heif", "heif", "HEIF image")),
    (frozenset({b"qt  "}), FileType("video/quicktime", "mov", "QuickTime video")),
    (frozenset({b"M4A ", b"M4B "}), FileType("audio/mp4", "m4a", "MPEG-4 audio")),
    (frozenset({b"3gp4", b"3gp5", b"3gp6", b"3g2a"}), FileType("video/3gpp", "3gp", "3GPP video")),
)
_MP4 = FileType("video/mp4", "mp4", "MPEG-4 video")

_ZIP_MEMBERS: tuple[tuple[str, FileType], ...] = (
    (
        "word/document.xml",
        FileType("application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx", "Word document"),
    ),
    (
        "xl/workbook.xml",
        FileType("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx", "Excel workbook"),
    ),
    (
        "ppt/presentation.xml",
        FileType(
            "application/vnd.openxmlformats-officedocument.presentationml.presentation",
            "pptx",
            "PowerPoint presentation",
        ),
    ),
    ("AndroidManifest.xml", FileType("application/vnd.android.package-archive", "apk", "Android package")),
    ("META-INF/MANIFEST.MF", FileType("application/java-archive", "jar", "Java archive")),
)
_ZIP_MIMETYPES = {
    "application/vnd.oasis.opendocument.text": ("odt", "OpenDocument text"),
    "application/vnd.oasis.opendocument.spreadsheet": ("ods", "OpenDocument spreadsheet"),
    "application/vnd.oasis.opendocument.presentation": ("odp", "OpenDocument presentation"),
    "application/vnd.oasis.opendocument.graphics": ("odg", "OpenDocument drawing"),
    "application/epub+zip": ("epub", "EPUB e-book"),
}
ZIP = FileType("application/zip", "zip", "ZIP archive")

_NETPBM = re.compile(rb"P([1-6])\s")
_NETPBM_TYPES = {
    kind: FileType(f"image/x-portable-{name}", extension, f"Netpbm {name} image ({encoding})")
    for kinds, name, extension in ((b"14", "bitmap", "pbm"), (b"25", "graymap", "pgm"), (b"36", "pixmap", "ppm"))
    for kind, encoding in zip((kinds[:1], kinds[1:]), ("ASCII", "binary"), strict=True)
}
_MP3_FRAME = re.compile(rb"\xff[\xe2-\xff]")
# Control characters text does not hold (white space, and ESC for terminal colours, aside): in UTF-8 bytes, and in
# text decoded from UTF-16.
_CONTROL = re.compile(rb"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]")
_CONTROL_TEXT = re.compile(_CONTROL.pattern.decode("ascii"))
_XML_DECLARATION = re.compile(rb"^\s*<\?xml[^>]*\?>", re.IGNORECASE)
_SVG = re.compile(rb"<svg[\s>]", re.IGNORECASE)
_HTML = re.compile(rb"<(!doctype\s+html|html|head|body|title|p|div|h1|table|br|a\s)[\s>/]", re.IGNORECASE)
_XML_START = re.compile(rb"<(!doctype\s|[A-Za-z_:][\w.:-]*[\s/>])", re.IGNORECASE)
_XHTML_NAMESPACE = b"http://www.w3.org/1999/xhtml"

# puremagic's answers that need fixing: empty or non-standard MIME types and extensions.
_PUREMAGIC_FIXES = {"image/x-ms-bmp": "image/bmp", "application/x-gzip": "application/gzip", "audio/wave": "audio/wav"}


def detect_type(data: bytes) -> FileType:
    """The type of `data` from its content.

    :raises InvalidInput: empty input.
    """
    if not data:
        raise InvalidInput("the body is empty: send the file's bytes")
    head = data[:SNIFF_BYTES]
    return (
        _by_prefix(data, head)
        or _by_container(data, head)
        or _by_puremagic(head)
        or _by_text(data, head)
        or OCTET_STREAM
    )


def _by_prefix(data: bytes, head: bytes) -> FileType | None:
    for prefix, file_type in _PREFIXES:
        if head.startswith(prefix):
            if prefix == b"BM" and len(head) < 14:
                continue
            if prefix == b"MZ" and len(head) < 64:
                continue
            return file_type
    if len(data) >= 262 and data[257:262] == b"ustar":
        return FileType("application/x-tar", "tar", "tar archive")
    if head[128:132] == b"DICM":
        return FileType("application/dicom", "dcm", "DICOM medical image")
    if head[36:40] == b"acsp":
        return FileType("application/vnd.iccprofile", "icc", "ICC colour profile")
    netpbm = _NETPBM.match(head)
    if netpbm:
        return _NETPBM_TYPES[netpbm.group(1)]
    utf16 = _utf16_text(head)  # before MP3: a little-endian BOM (FF FE) is also an MP3 frame sync's shape
    if utf16:
        return utf16
    if _MP3_FRAME.match(head):
        return FileType("audio/mpeg", "mp3", "MP3 audio")
    return None


def _utf16_text(head: bytes) -> FileType | None:
    """UTF-16 text after its byte order mark (Excel's "Unicode Text", Windows Notepad's "Unicode"), when what
    follows decodes to text without control characters other than white space."""
    codec = {b"\xff\xfe": "utf-16-le", b"\xfe\xff": "utf-16-be"}.get(head[:2])
    if codec is None:
        return None
    body = head[2 : 2 + (len(head) - 2) // 2 * 2]
    try:
        text = body.decode(codec)
    except UnicodeDecodeError as exc:
        if exc.start < len(body) - 4:  # not merely a surrogate pair cut by the sniff window
            return None
        text = body[: exc.start].decode(codec)
    if _CONTROL_TEXT.search(text):
        return None
    return FileType("text/plain", "txt", f"UTF-16 text ({'little' if codec.endswith('le') else 'big'}-endian)")


def _by_container(data: bytes, head: bytes) -> FileType | None:
    if head.startswith(b"RIFF") and len(head) >= 12:
        return _RIFF.get(head[8:12])
    if head[4:8] == b"ftyp" and len(head) >= 12:
        return _iso_bmff(head)
    if head.startswith(b"\x1a\x45\xdf\xa3"):
        if b"webm" in head[:64]:
            return FileType("video/webm", "webm", "WebM video")
        return FileType("video/x-matroska", "mkv", "Matroska video")
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return _zip_kind(data)
    return None


def _iso_bmff(head: bytes) -> FileType:
    size = int.from_bytes(head[0:4], "big")
    box = head[8 : min(max(size, 16), len(head))]
    brands = {box[0:4]} | {box[i : i + 4] for i in range(8, len(box) - 3, 4)}
    for candidates, file_type in _BRANDS:
        if box[0:4] in candidates:
            return file_type
    for candidates, file_type in _BRANDS:
        if brands & candidates:
            return file_type
    return _MP4


def _zip_kind(data: bytes) -> FileType:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = set(archive.namelist())
        if "mimetype" in names and archive.getinfo("mimetype").file_size < 100:
            declared = archive.read("mimetype").decode("ascii", "replace").strip()
            if declared in _ZIP_MIMETYPES:
                extension, description = _ZIP_MIMETYPES[declared]
                return FileType(declared, extension, description)
    except (zipfile.BadZipFile, OSError, KeyError, ValueError, EOFError, NotImplementedError):
        return ZIP
    for member, file_type in _ZIP_MEMBERS:
        if member in names:
            return file_type
    return ZIP


def _by_puremagic(head: bytes) -> FileType | None:
    import puremagic

    if _XML_DECLARATION.match(head.lstrip(b"\xef\xbb\xbf \t\r\n")):
        return None  # puremagic guesses XML from its declaration alone: the text rules tell SVG and XHTML apart

    try:
        matches = puremagic.magic_string(head)
    except (puremagic.PureError, ValueError):
        return None
    for match in matches:
        if match.mime_type and match.confidence >= 0.5 and not match.mime_type.startswith("text/"):
            mime = _PUREMAGIC_FIXES.get(match.mime_type, match.mime_type)
            return FileType(mime, match.extension.lstrip(".").lower(), match.name)
    return None


def _by_text(data: bytes, head: bytes) -> FileType | None:
    text = _as_text(head, complete=len(data) <= SNIFF_BYTES)
    if text is None:
        return None
    stripped = text.lstrip(b"\xef\xbb\xbf \t\r\n")
    lowered = stripped[:1024].lower()
    if _SVG.search(lowered) and (lowered.startswith((b"<svg", b"<?xml", b"<!doctype svg", b"<!--"))):
        return FileType("image/svg+xml", "svg", "SVG image")
    if _XML_DECLARATION.match(stripped) or lowered.startswith(b'<!doctype html public "-//w3c//dtd xhtml'):
        if _XHTML_NAMESPACE in lowered or b"<html" in lowered:
            return FileType("application/xhtml+xml", "xhtml", "XHTML document")
        return FileType("application/xml", "xml", "XML document")
    if lowered.startswith(b"<") and _HTML.search(lowered):
        if _XHTML_NAMESPACE in lowered:
            return FileType("application/xhtml+xml", "xhtml", "XHTML document")
        return FileType("text/html", "html", "HTML document")
    if lowered.startswith((b"{", b"[")) and _is_json(data):
        return FileType("application/json", "json", "JSON data")
    if _XML_START.match(stripped):
        return FileType("application/xml", "xml", "XML document")
    if stripped.startswith(b"CACHE MANIFEST"):
        return FileType("text/cache-manifest", "appcache", "Web application cache manifest")
    return FileType("text/plain", "txt", "UTF-8 text" if any(byte > 127 for byte in head) else "ASCII text")


def _as_text(head: bytes, *, complete: bool) -> bytes | None:
    """`head` when it is UTF-8 text without control characters other than white space."""
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if complete or exc.start < len(head) - 3:  # a multi-byte character cut by the sniff window
            return None
    if _CONTROL.search(head):
        return None
    return head


def _is_json(text: bytes) -> bool:
    import orjson

    try:
        orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    return True
