"""File detection over ../shared/corpus/small and Markdown over the CommonMark spec."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from tests.helpers import auth, corpus_dir, post_bytes

pytestmark = pytest.mark.corpus

# Reviewed by hand against each file's bytes.
EXPECTED_TYPES = {
    ".travis.yml": ("text/plain", "txt"),
    "AudioVideoInterleave.avi": ("video/x-msvideo", "avi"),
    "FlashVideo.flv": ("video/x-flv", "flv"),
    "Mpeg4.mp4": ("video/mp4", "mp4"),
    "README.md": ("text/plain", "txt"),
    "WindowsMediaVideo.wmv": ("video/x-ms-asf", "wmv"),
    "WindowsMetafile.wmf": ("image/wmf", "wmf"),
    "bmp.bmp": ("image/bmp", "bmp"),
    "bpg.bpg": ("image/bpg", "bpg"),
    "bzip2.bz2": ("application/x-bzip2", "bz2"),
    "compiledhtml.chm": ("application/vnd.ms-htmlhelp", "chm"),
    "dicom.dcm": ("application/dicom", "dcm"),
    "gif-transparent.gif": ("image/gif", "gif"),
    "gif.gif": ("image/gif", "gif"),
    "gzip-name.gz": ("application/gzip", "gz"),
    "gzip.gz": ("application/gzip", "gz"),
    "heif.heif": ("image/heic", "heic"),
    "html-2.0.html": ("text/html", "html"),
    "html-3.2.html": ("text/html", "html"),
    "html-4.0-strict.html": ("text/html", "html"),
    "html-4.01-frameset.html": ("text/html", "html"),
    "html-4.01-strict.html": ("text/html", "html"),
    "html-4.01-transitional.html": ("text/html", "html"),
    "html5.html": ("text/html", "html"),
    "icc.icc": ("application/vnd.iccprofile", "icc"),
    "ico.ico": ("image/vnd.microsoft.icon", "ico"),
    "iso-html.html": ("text/html", "html"),
    "jpeg.jpg": ("image/jpeg", "jpg"),
    "jpeg2.jp2": ("image/jp2", "jp2"),
    "json.json": ("text/plain", "txt"),  # the file is the bare JSON scalar `0`
    "jxl.jxl": ("image/jxl", "jxl"),
    "manifest.appcache": ("text/cache-manifest", "appcache"),
    "mng.mng": ("video/x-mng", "mng"),
    "mp3.mp3": ("audio/mpeg", "mp3"),
    "mp4-with-audio.mp4": ("video/mp4", "mp4"),
    "pbm.pbm": ("image/x-portable-bitmap", "pbm"),
    "pbmb.pbm": ("image/x-portable-bitmap", "pbm"),
    "pdf.pdf": ("application/pdf", "pdf"),
    "pgm.pgm": ("image/x-portable-graymap", "pgm"),
    "pgmb.pgm": ("image/x-portable-graymap", "pgm"),
    "png-transparent.png": ("image/png", "png"),
    "png-truncated.png": ("image/png", "png"),
    "ppm.ppm": ("image/x-portable-pixmap", "ppm"),
    "ppmb.ppm": ("image/x-portable-pixmap", "ppm"),
    "rar14.rar": ("application/vnd.rar", "rar"),
    "rar4.rar": ("application/vnd.rar", "rar"),
    "rar5.rar": ("application/vnd.rar", "rar"),
    "rtf.rtf": ("application/rtf", "rtf"),
    "svg.svg": ("image/svg+xml", "svg"),
    "tar.tar": ("application/x-tar", "tar"),
    "targa.tga": ("image/tga", "tga"),
    "tiff.tif": ("image/tiff", "tif"),
    "wav.wav": ("audio/wav", "wav"),
    "webm.webm": ("video/webm", "webm"),
    "webp.webp": ("image/webp", "webp"),
    "x-bitmap.xbm": ("image/x-xbitmap", "xbm"),
    "xhtml-1.0-frameset.html": ("application/xhtml+xml", "xhtml"),
    "xhtml-1.0-strict.xhtml": ("application/xhtml+xml", "xhtml"),
    "xhtml-1.1.xhtml": ("application/xhtml+xml", "xhtml"),
    "xhtml-basic-1.0.xhtml": ("text/html", "html"),  # <html> without the XHTML namespace
    "xhtml-basic-1.1.xhtml": ("text/html", "html"),
    "xhtml5.xhtml": ("application/xhtml+xml", "xhtml"),
    "xml-1.0-valid.xml": ("application/xml", "xml"),
    "xml-1.0.xml": ("application/xml", "xml"),
    "xml-1.1-valid.xml": ("application/xml", "xml"),
    "xml-1.1.xml": ("application/xml", "xml"),
    "zip.zip": ("application/zip", "zip"),
}


def test_detect_every_small_file(api: TestClient, key: str) -> None:
    folder = corpus_dir("small")
    wrong = {}
    for path in sorted(folder.iterdir()):
        data = path.read_bytes()
        if not data:
            continue  # markdown.md, toml.toml, yaml.yml are empty: the API answers 400
        found = post_bytes(api, key, "/v1/file/detect", data).json()
        if (found["mime"], found["extension"]) != EXPECTED_TYPES.get(path.name):
            wrong[path.name] = (found["mime"], found["extension"])
    assert wrong == {}


# Measured through the API (GFM extensions on, raw HTML allowed): 645 of the CommonMark spec's 655
# examples exact. The 10 others are where the GFM extensions differ from plain CommonMark by design:
# the tag filter (<script>, <style>, <textarea>... escaped), autolinks of bare URLs and e-mail addresses.
COMMONMARK_PASSES_WITH_HTML = 645


def test_commonmark_spec_pass_rate(api: TestClient, key: str) -> None:
    spec = json.loads((corpus_dir("commonmark-spec") / "spec.derived.json").read_text(encoding="utf-8"))
    assert len(spec) == 655
    passed = 0
    for example in spec:
        response = api.post(
            "/v1/text/markdown-to-html",
            params={"allowHtml": "true"},
            content=example["markdown"].encode(),
            headers={**auth(key), "Content-Type": "text/markdown"},
        )
        assert response.status_code == 200, response.text
        passed += response.text == example["html"]
    assert passed >= COMMONMARK_PASSES_WITH_HTML
