"""Decompression, parser and pixel bombs, each sent through the whole API in one process.

    python -m tests.bombs [NAME ...]   # one JSON line per bomb: status, code, seconds, peak RSS
    python -m tests.bombs --baseline   # the peak RSS of the same process without a bomb

The bombs test runs them all in a child process and checks every answer and the peak memory;
`make bench` runs each in a fresh process and reports its time and memory.
"""

from __future__ import annotations

import gzip
import io
import json
import random
import resource
import struct
import sys
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

JSON = "application/json"
PROJECT_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Bomb:
    name: str
    path: str
    build: Callable[[], bytes]
    expected: tuple[int, str | None]  # status and error code (None: a 200)
    content_type: str = "application/octet-stream"
    params: dict[str, str] = field(default_factory=dict)


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


BOMBS: list[Bomb] = [
    Bomb("png 100000x100000", "/v1/image/convert", lambda: png_claiming(100_000, 100_000), (413, "too_large"),
         params={"to": "webp"}),
    Bomb("jpeg 65535x65535", "/v1/image/resize", jpeg_claiming_65535, (413, "too_large"), params={"width": "100"}),
    Bomb("gif 65535x65535", "/v1/image/convert", gif_claiming_65535, (413, "too_large"), params={"to": "png"}),
    Bomb("webp 100000x100000", "/v1/image/compress", lambda: webp_claiming(100_000, 100_000), (413, "too_large"),
         params={"quality": "50"}),
    Bomb("png 100000x100000 to qr/read", "/v1/qr/read", lambda: png_claiming(100_000, 100_000), (413, "too_large")),
    Bomb("png 100000x100000 to favicon-set", "/v1/image/favicon-set", lambda: png_claiming(100_000, 100_000),
         (413, "too_large")),
    Bomb("qr/read of 50 megapixels", "/v1/qr/read", lambda: striped_image(7071), (400, "invalid_input")),
    Bomb("barcode/read of 50 megapixels", "/v1/barcode/read", lambda: striped_image(7071), (200, None)),
    Bomb("pdf flate 2 GiB (extract-text)", "/v1/pdf/extract-text", lambda: flate_bomb_pdf(2048), (413, "too_large")),
    Bomb("pdf flate 2 GiB (render-page)", "/v1/pdf/render-page", lambda: flate_bomb_pdf(2048), (413, "too_large")),
    Bomb("pdf flate 2 GiB (compress)", "/v1/pdf/compress", lambda: flate_bomb_pdf(2048), (200, None)),
    Bomb("pdf cyclic page tree", "/v1/pdf/info", cyclic_page_tree_pdf, (400, "invalid_input")),
    Bomb("pdf one page listed 3 million times", "/v1/pdf/info", lambda: shared_page_tree_pdf(3_000_000),
         (400, "invalid_input")),
    Bomb("pdf 400,000 objects", "/v1/pdf/split", lambda: many_objects_pdf(400_000), (200, None),
         params={"ranges": "1"}),
    Bomb("pdf xref claiming 10 million objects", "/v1/pdf/rotate", lambda: huge_xref_pdf(10_000_000), (200, None),
         params={"degrees": "90"}),
    Bomb("svg billion laughs", "/v1/render/svg-to-png", billion_laughs_svg, (400, "invalid_input"),
         content_type="image/svg+xml"),
    Bomb("svg 10000-deep nesting", "/v1/render/svg-to-png", lambda: deep_svg(10_000), (413, "too_large"),
         content_type="image/svg+xml"),
    Bomb("svgz inflating to 20 MB", "/v1/render/svg-to-png",
         lambda: gzip.compress(b"<svg xmlns='http://www.w3.org/2000/svg'>" + b" " * (20 << 20) + b"</svg>"),
         (413, "too_large"), content_type="image/svg+xml"),
    Bomb("json 100000 nested arrays (format)", "/v1/data/json-format", lambda: b"[" * 100_000 + b"]" * 100_000,
         (400, "invalid_input"), content_type=JSON),
    Bomb("json 100000 nested arrays (json-to-csv)", "/v1/data/json-to-csv",
         lambda: b"[" * 100_000 + b"]" * 100_000, (400, "invalid_input"), content_type=JSON),
    Bomb("json 100000 nested arrays (text/diff)", "/v1/text/diff",
         lambda: b'{"a": "x", "b": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", (400, "invalid_input"),
         content_type=JSON),
    Bomb("csv field claiming 100 MB (unterminated quote, 4 MB sent)", "/v1/data/csv-to-json",
         lambda: b'a,b\n1,"' + b"x" * 4_000_000, (400, "invalid_input"), content_type="text/csv"),
    Bomb("markdown 100000 nested quotes", "/v1/text/markdown-to-html", lambda: b">" * 100_000 + b" x",
         (200, None), content_type="text/markdown"),
    Bomb("markdown 50000 nested emphasis and links", "/v1/text/markdown-to-html",
         lambda: b"*[" * 50_000 + b"x" + b"](u)*" * 50_000, (200, None), content_type="text/markdown"),
    Bomb("markdown 4 MB of nested emphasis and links", "/v1/text/markdown-to-html",
         lambda: b"*[" * 570_000 + b"x" + b"](u)*" * 570_000, (413, "too_large"), content_type="text/markdown"),
    Bomb("merge with 10000 parts", "/v1/pdf/merge",
         lambda: b"".join(b"--B\r\nContent-Disposition: form-data; name=\"files\"; filename=\"f\"\r\n\r\nx\r\n"
                          for _ in range(10_000)) + b"--B--\r\n",
         (400, "invalid_input"), content_type="multipart/form-data; boundary=B"),
]  # fmt: skip


@dataclass(frozen=True)
class Outcome:
    name: str
    status: int
    code: str | None
    seconds: float
    peak_rss_mib: float
    body_bytes: int


def peak_rss_mib() -> float:
    """This process's peak resident memory: VmHWM, which starts afresh at exec (ru_maxrss keeps the
    high-water mark of the process that forked this one, so a child of a big process reads big)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(names: list[str] | None = None) -> list[Outcome]:
    """Send each bomb through the composed local API (metering in moto's in-process mock)."""
    from fastapi.testclient import TestClient

    from fileapi.local.server import create_local_app
    from fileapi.web.logs import logger
    from tests.helpers import in_memory_metering

    logger.setLevel("WARNING")
    chosen = [bomb for bomb in BOMBS if names is None or bomb.name in names]
    outcomes = []
    with (
        in_memory_metering("bombs@example.com") as key,
        TestClient(create_local_app(), raise_server_exceptions=False) as api,
    ):
        api.get("/health")
        for bomb in chosen:
            body = bomb.build()
            headers = {"Authorization": f"Bearer {key}", "Content-Type": bomb.content_type}
            started = time.perf_counter()
            response = api.post(bomb.path, params=bomb.params, content=body, headers=headers)
            seconds = time.perf_counter() - started
            code = response.json().get("error") if response.status_code >= 400 else None
            outcomes.append(Outcome(bomb.name, response.status_code, code, seconds, peak_rss_mib(), len(body)))
    return outcomes


if __name__ == "__main__":
    if sys.argv[1:] == ["--baseline"]:  # the process after start-up and one request, no bomb
        run([])
        print(json.dumps({"peak_rss_mib": peak_rss_mib()}))
    else:
        for outcome in run(sys.argv[1:] or None):
            print(json.dumps(outcome.__dict__), flush=True)
