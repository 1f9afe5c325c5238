"""Large inputs made on disk, never whole in memory: a scan-like PDF and a PNG of noise (also used by the bench)."""

from __future__ import annotations

import os
import zlib
from pathlib import Path


def scan_like_pdf(path: Path, *, pages: int, image_bytes: int = 100_000) -> Path:
    """A PDF of `pages` pages, each one full-page greyscale 'scan' image of about `image_bytes` (random data in a
    DCT-labelled stream is not decoded by a structure operation, so it stands for a JPEG scan), written page by
    page with its cross-reference table."""
    side = 1000
    offsets: list[int] = []
    with path.open("wb") as out:
        out.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")

        def obj(number: int, body: bytes) -> None:
            while len(offsets) < number:
                offsets.append(0)
            offsets[number - 1] = out.tell()
            out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")

        kids = " ".join(f"{3 + 3 * index} 0 R" for index in range(pages)).encode()
        obj(1, b"<< /Type /Catalog /Pages 2 0 R >>")
        obj(2, b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % pages)
        for index in range(pages):
            page, content, image = 3 + 3 * index, 4 + 3 * index, 5 + 3 * index
            obj(
                page,
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
                b"/Resources << /XObject << /Im0 %d 0 R >> >> >>" % (content, image),
            )
            drawing = b"q 612 0 0 792 0 0 cm /Im0 Do Q"
            obj(content, b"<< /Length %d >>\nstream\n" % len(drawing) + drawing + b"\nendstream")
            data = os.urandom(image_bytes)
            obj(
                image,
                b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
                b"/BitsPerComponent 8 /Filter /DCTDecode /Length %d >>\nstream\n"
                % (side, side, len(data))
                + data
                + b"\nendstream",
            )
        xref = out.tell()
        out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(offsets) + 1))
        for offset in offsets:
            out.write(b"%010d 00000 n \n" % offset)
        out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(offsets) + 1, xref))
    return path


def noise_png(path: Path, *, target_bytes: int) -> Path:
    """An RGB PNG of random pixels of at least `target_bytes` (noise does not compress), written row by row."""
    width = 6000
    height = -(-target_bytes // (width * 3)) + 1
    compressor = zlib.compressobj(1)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")

    with path.open("wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n")
        out.write(chunk(b"IHDR", width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])))
        for start in range(0, height, 64):
            rows = b"".join(b"\x00" + os.urandom(width * 3) for _ in range(min(64, height - start)))
            out.write(chunk(b"IDAT", compressor.compress(rows)))
        out.write(chunk(b"IDAT", compressor.flush()))
        out.write(chunk(b"IEND", b""))
    return path
