"""Hostile images, PDFs and XML, each built from a size or count: headers claiming more pixels than
they hold, animations of many large frames, pixels that decode to far more than the file, flate
bombs, cyclic and shared page trees, huge cross-reference tables, entity expansion. tests/bombs.py
names them with their expected answers."""

from __future__ import annotations

import io
import random
import struct
import zlib


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_claiming(width: int, height: int) -> bytes:
    """A PNG header claiming width x height RGB pixels, with one empty IDAT."""
    header = _png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    return b"\x89PNG\r\n\x1a\n" + header + _png_chunk(b"IDAT", zlib.compress(b"")) + _png_chunk(b"IEND", b"")


def _small(fmt: str, **options: object) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGBA" if fmt == "WEBP" else "RGB", (16, 16), (10, 20, 30, 255)).save(out, fmt, **options)
    return out.getvalue()


def jpeg_claiming_65535() -> bytes:
    """A real 16x16 JPEG whose frame header says 65535 x 65535 (JPEG's largest)."""
    data = bytearray(_small("JPEG"))
    sof = data.index(b"\xff\xc0")
    data[sof + 5 : sof + 9] = struct.pack(">HH", 65535, 65535)
    return bytes(data)


def gif_claiming_65535() -> bytes:
    """A real 16x16 GIF whose screen and image descriptor say 65535 x 65535 (GIF's largest)."""
    data = bytearray(_small("GIF"))
    data[6:10] = struct.pack("<HH", 65535, 65535)
    descriptor = data.index(b"\x2c", 13)
    data[descriptor + 5 : descriptor + 9] = struct.pack("<HH", 65535, 65535)
    return bytes(data)


def webp_claiming(width: int, height: int) -> bytes:
    """A real 16x16 lossless WebP given a VP8X (extended format) header whose canvas is width x height."""
    simple = _small("WEBP", lossless=True)
    canvas = (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    vp8x = b"VP8X" + struct.pack("<I", 10) + b"\x10\x00\x00\x00" + canvas  # flags: alpha
    chunks = vp8x + simple[12:]
    return b"RIFF" + struct.pack("<I", len(chunks) + 4) + b"WEBP" + chunks


def striped_image(side: int) -> bytes:
    """side x side grey diagonal lines as PNG: compresses well, holds no code, and is slow to search."""
    from PIL import Image, ImageDraw

    rng = random.Random(side)
    image = Image.new("L", (side, side), 255)
    draw = ImageDraw.Draw(image)
    for offset in range(0, side, 7):
        draw.line([(offset, 0), (side - offset, side)], fill=rng.choice([0, 128]), width=2)
    out = io.BytesIO()
    image.save(out, "PNG", optimize=True)
    return out.getvalue()


def flate_bomb_pdf(decoded_mib: int) -> bytes:
    """A one-page PDF whose content stream inflates to `decoded_mib` MiB: one flushed deflate
    segment of 1 MiB repeated (so a 2 GiB bomb takes under a second to build)."""
    chunk = b"0" * (1024 * 1024)
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    segment = compressor.compress(chunk) + compressor.flush(zlib.Z_FULL_FLUSH)
    tail = compressor.flush()
    checksum = 1
    for _ in range(decoded_mib):
        checksum = zlib.adler32(chunk, checksum)
    stream = b"\x78\xda" + segment * decoded_mib + tail + struct.pack(">I", checksum)
    page = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>"
    return _pdf({**ONE_PAGE, 3: page, 4: _stream(b"", stream)})


ONE_PAGE = {
    1: b"<< /Type /Catalog /Pages 2 0 R >>",
    2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    3: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] >>",
}


def _objects(objects: dict[int, bytes]) -> tuple[bytearray, dict[int, int]]:
    """The header and the objects written in order, with each one's offset."""
    out = bytearray(b"%PDF-1.7\n")
    offsets = {}
    for number, body in objects.items():
        offsets[number] = len(out)
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    return out, offsets


def _stream(dictionary: bytes, data: bytes) -> bytes:
    return b"<< %s /Filter /FlateDecode /Length %d >>\nstream\n" % (dictionary, len(data)) + data + b"\nendstream"


def _with_xref_stream(out: bytearray, number: int, size: int, width: int, table: bytes) -> bytes:
    """`out` closed by cross-reference stream object `number` (compressed `table`, /W [1 4 width])."""
    xref = len(out)
    dictionary = b"/Type /XRef /Size %d /W [1 4 %d] /Root 1 0 R" % (size, width)
    out += b"%d 0 obj\n" % number + _stream(dictionary, table) + b"\nendobj\nstartxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


def _pdf(objects: dict[int, bytes]) -> bytes:
    """`objects` with a classic cross-reference table."""
    out, offsets = _objects(objects)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offsets[number] for number in sorted(objects))
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def cyclic_page_tree_pdf() -> bytes:
    return _pdf({**ONE_PAGE, 2: b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>"})


def shared_page_tree_pdf(count: int) -> bytes:
    """/Kids naming one page `count` times, inside a compressed object stream (26 KB for 3 million)."""
    header = b"2 0 "
    pages = b"<< /Type /Pages /Count %d /Kids [%s] >>" % (count, b"3 0 R " * count)
    packed = _stream(b"/Type /ObjStm /N 1 /First %d" % len(header), zlib.compress(header + pages, 9))
    out, offsets = _objects({1: ONE_PAGE[1], 3: ONE_PAGE[3], 5: packed})
    rows = [(0, 0, 65535), (1, offsets[1], 0), (2, 5, 0), (1, offsets[3], 0), (0, 0, 0), (1, offsets[5], 0)]
    rows.append((1, len(out), 0))
    return _with_xref_stream(out, 6, 7, 2, zlib.compress(b"".join(struct.pack(">BIH", *row) for row in rows)))


def many_objects_pdf(count: int) -> bytes:
    """A valid one-page PDF with `count` extra objects in a compressed object stream."""
    numbers = range(4, 4 + count)
    header = b" ".join(b"%d %d" % (number, 5 * index) for index, number in enumerate(numbers)) + b" "
    body = b" ".join(b"null" for _ in numbers)
    stream_number = 4 + count
    packed = _stream(b"/Type /ObjStm /N %d /First %d" % (count, len(header)), zlib.compress(header + body, 9))
    out, offsets = _objects({**ONE_PAGE, stream_number: packed})
    rows = [struct.pack(">BII", 0, 0, 65535)]
    rows += [struct.pack(">BII", 1, offsets[number], 0) for number in (1, 2, 3)]
    rows += [struct.pack(">BII", 2, stream_number, index) for index in range(count)]
    rows += [struct.pack(">BII", 1, offsets[stream_number], 0), struct.pack(">BII", 1, len(out), 0)]
    return _with_xref_stream(out, stream_number + 1, stream_number + 2, 4, zlib.compress(b"".join(rows)))


def huge_xref_pdf(size: int) -> bytes:
    """A one-page PDF whose compressed cross-reference stream declares `size` objects (all free but 4)."""
    out, offsets = _objects(ONE_PAGE)
    compressor = zlib.compressobj(9)
    table = compressor.compress(
        struct.pack(">BIH", 0, 0, 65535)
        + b"".join(struct.pack(">BIH", 1, offsets[number], 0) for number in (1, 2, 3))
        + struct.pack(">BIH", 1, len(out), 0)
    )
    free = struct.pack(">BIH", 0, 0, 0)
    for _ in range((size - 5) // 100_000):
        table += compressor.compress(free * 100_000)
    table += compressor.compress(free * ((size - 5) % 100_000)) + compressor.flush()
    return _with_xref_stream(out, 4, size, 2, table)


def billion_laughs_svg() -> bytes:
    entities = ['<!ENTITY lol0 "lol">'] + [
        f'<!ENTITY lol{level} "{f"&lol{level - 1};" * 10}">' for level in range(1, 10)
    ]
    return (
        '<?xml version="1.0"?><!DOCTYPE svg [' + "".join(entities) + "]>"
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>&lol9;</text></svg>'
    ).encode()


def deep_svg(depth: int) -> bytes:
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">' + "<g>" * depth + "</g>" * depth + "</svg>"
    ).encode()


def png_of_zeros(width: int, height: int, *, exif: bytes = b"", idat: bytes | None = None) -> bytes:
    """A real width x height RGB PNG of black pixels (a 144 MP one is 420 KB), with an eXIf chunk after
    the pixel data when `exif` is given; `idat` replaces the pixel data (e.g. with garbage)."""
    if idat is None:
        compressor = zlib.compressobj(9)
        row = b"\0" * (1 + 3 * width)
        idat = b"".join(compressor.compress(row) for _ in range(height)) + compressor.flush()
    header = _png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    tail = _png_chunk(b"eXIf", exif) if exif else b""
    return b"\x89PNG\r\n\x1a\n" + header + _png_chunk(b"IDAT", idat) + tail + _png_chunk(b"IEND", b"")


def exif_with_make(make: str) -> bytes:
    """A big-endian TIFF-structured EXIF block whose IFD0 holds only Make."""
    value = make.encode() + b"\0"
    entry = struct.pack(">HHI", 0x010F, 2, len(value)) + struct.pack(">I", 26)
    return b"MM\x00\x2a" + struct.pack(">I", 8) + struct.pack(">H", 1) + entry + struct.pack(">I", 0) + value


def gif_of_frames(frames: int, side: int) -> bytes:
    """An animated GIF of `frames` solid side x side frames (a frame is under 2 KB of LZW)."""
    from PIL import Image

    images = [Image.new("P", (side, side), index % 2) for index in range(3)]
    out = io.BytesIO()
    images[0].save(out, "GIF", save_all=True, append_images=images[1:], duration=10, loop=0)
    three = out.getvalue()
    second = three.index(b"\x21\xf9", three.index(b"\x21\xf9") + 1)
    third = three.index(b"\x21\xf9", second + 1)
    return three[:second] + three[second:third] * (frames - 2) + three[third:]


def pdf_of_pages(pages: int, *, shared_bytes: int = 0) -> bytes:
    """`pages` pages; with `shared_bytes`, every page uses one incompressible stream of that size (a
    split copies it into every part)."""
    import os

    import pikepdf

    pdf = pikepdf.Pdf.new()
    shared = pdf.make_stream(os.urandom(shared_bytes)) if shared_bytes else None
    for number in range(pages):
        page = pdf.add_blank_page(page_size=(612, 792))
        if shared is not None:
            page.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(X=shared))
        page.Contents = pdf.make_stream(b"%% page %d" % number)
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def xobject_fanout_pdf(levels: int, fanout: int, *, leaf: bytes = b"0 0 1 1 re f", pattern: bool = False) -> bytes:
    """One page drawing a chain of `levels` form XObjects, each drawing the next `fanout` times: fanout^levels
    draws of `leaf` from a few hundred bytes. With `pattern`, the chain is of tiling patterns instead, each
    filling a rectangle with the next."""
    objects: dict[int, bytes] = {1: b"<< /Type /Catalog /Pages 2 0 R >>"}
    first = 5  # the cross-reference table numbers objects 1..n
    for level in range(levels + 1):
        number, inner = first + level, first + level + 1
        if level == levels:
            content, resources = leaf, b"<< >>"
        elif pattern:
            content = b"/Pattern cs /P scn " + b"0 0 10 10 re f " * fanout
            resources = b"<< /Pattern << /P %d 0 R >> >>" % inner
        else:
            content = b"/X Do " * fanout
            resources = b"<< /XObject << /X %d 0 R >> >>" % inner
        kind = (
            b"/PatternType 1 /PaintType 1 /TilingType 1 /XStep 10 /YStep 10"
            if pattern
            else b"/Type /XObject /Subtype /Form"
        )
        objects[number] = _stream(b"%s /BBox [0 0 10 10] /Resources %s" % (kind, resources), zlib.compress(content))
    use = b"/Pattern cs /P scn 0 0 612 792 re f" if pattern else b"/X Do"
    top = b"/Pattern << /P %d 0 R >>" % first if pattern else b"/XObject << /X %d 0 R >>" % first
    objects[2] = b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>"
    objects[3] = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << %s >> /Contents 4 0 R >>" % top
    objects[4] = _stream(b"", zlib.compress(use))
    return _pdf(dict(sorted(objects.items())))


def self_drawing_form_pdf() -> bytes:
    """A page drawing a form XObject that draws itself three times (pdfium follows the loop)."""
    form = b"/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources << /XObject << /X 5 0 R >> >>"
    return _pdf(
        {
            1: b"<< /Type /Catalog /Pages 2 0 R >>",
            2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            3: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /X 5 0 R >> >> "
            b"/Contents 4 0 R >>",
            4: _stream(b"", zlib.compress(b"/X Do")),
            5: _stream(form, zlib.compress(b"0 0 1 1 re f /X Do /X Do /X Do")),
        }
    )


def _jpeg_segments(data: bytes) -> list[tuple[int, int, int]]:
    """(marker, start, end) of each segment of a JPEG; a scan's segment runs to the end of its entropy-coded data."""
    segments = []
    index = 2
    while index < len(data):
        marker = data[index + 1]
        if marker == 0xD9:
            segments.append((marker, index, index + 2))
            break
        end = index + 2 + struct.unpack(">H", data[index + 2 : index + 4])[0]
        if marker == 0xDA:
            while True:
                end = data.index(b"\xff", end)
                if data[end + 1] != 0 and not 0xD0 <= data[end + 1] <= 0xD7:
                    break
                end += 2
        segments.append((marker, index, end))
        index = end
    return segments


def jpeg_of_scans(side: int, scans: int) -> bytes:
    """A grey side x side progressive JPEG coded in `scans` scans: its last refinement scan repeated (libjpeg
    decodes each again; 50,000 scans of 7000x7000 are 0.5 MB)."""
    from PIL import Image

    out = io.BytesIO()
    Image.new("L", (side, side), 128).save(out, "JPEG", progressive=True, quality=75)
    data = out.getvalue()
    own = [segment for segment in _jpeg_segments(data) if segment[0] == 0xDA]
    _, start, end = own[-1]
    return data[:end] + data[start:end] * (scans - len(own)) + data[end:]
