"""file/detect's rules where a library's guess or a short signature answered wrong."""

from __future__ import annotations

import pytest

from fileapi.convert.detect import detect_type

SVG_BODY = b'<svg xmlns="http://www.w3.org/2000/svg" width="2" height="2"/>'


@pytest.mark.parametrize(
    ("data", "mime", "description"),
    [
        # A byte order mark FF FE is also the shape of an MP3 frame sync (FF E2-FF): it was "MP3 audio".
        ("\ufeffName\tAge\r\nAda\t36\r\n".encode("utf-16-le"), "text/plain", "UTF-16 text (little-endian)"),
        ("\ufeffhi".encode("utf-16-be"), "text/plain", "UTF-16 text (big-endian)"),
        (b"\xff\xfb\x90\x00" + bytes(400), "audio/mpeg", "MP3 audio"),  # a real frame header stays MP3
        (b"\xff\xfe\x00\x00\x01\x00" + bytes(64), "audio/mpeg", "MP3 audio"),  # control characters: not text
        # puremagic answers "XML Document" for any declaration: it was application/xml.
        (
            b'<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<!-- Created -->\n' + SVG_BODY,
            "image/svg+xml",
            "SVG image",
        ),
        (b'\xef\xbb\xbf<?xml version="1.0"?>\n' + SVG_BODY, "image/svg+xml", "SVG image"),
        (b'<?xml version="1.0"?><rss version="2.0"/>', "application/xml", "XML document"),
        (
            b'<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"/>',
            "application/xhtml+xml",
            "XHTML document",
        ),
    ],
)
def test_the_type_and_its_description(data: bytes, mime: str, description: str) -> None:
    found = detect_type(data)
    assert (found.mime, found.description) == (mime, description)
