"""Metadata write, checked with pdfinfo and exiftool (both copies) and pdf/info's own reader."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pikepdf
import pytest

from fileapi.convert.pdf import pdf_info
from fileapi.convert.pdf_metadata import set_pdf_metadata, set_pdf_metadata_file
from fileapi.errors import InvalidInput
from tests.helpers import require_tool
from tests.pdf_fixtures import make_pdf

PLAIN = make_pdf(["one page"], title="Old title", author="Old author")


def with_xmp(data: bytes) -> bytes:
    """`data` with an XMP packet mirroring its information dictionary (and a dc:subject bag)."""
    pdf = pikepdf.Pdf.open(io.BytesIO(data))
    with pdf.open_metadata(set_pikepdf_as_editor=False) as xmp:
        xmp.load_from_docinfo(pdf.docinfo)
        xmp["pdf:Keywords"] = "old, words"
        xmp["dc:subject"] = {"old", "words"}
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


XMP = with_xmp(PLAIN)


def pdfinfo(path: Path) -> dict[str, str]:
    out = subprocess.run([require_tool("pdfinfo"), str(path)], capture_output=True, text=True, check=True).stdout
    return {key.strip(): value.strip() for key, _, value in (line.partition(":") for line in out.splitlines())}


def exiftool(path: Path) -> dict[str, object]:
    out = subprocess.run(
        [require_tool("exiftool"), "-j", "-G1", "-a", "-sep", ", ", str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    result: dict[str, object] = json.loads(out)[0]
    return result


NEW = {
    "title": "Annual report 2026",
    "author": "Ada Lovelace",
    "subject": "Engines — analytical",
    "keywords": "finance, engines",
    "creator": "Writer 7",
    "producer": "fileapi",
}


@pytest.mark.tools
@pytest.mark.parametrize("source", [PLAIN, XMP], ids=["info only", "info and xmp"])
def test_every_field_set_agrees_in_pdfinfo_exiftool_and_pdf_info(tmp_path: Path, source: bytes) -> None:
    path = tmp_path / "out.pdf"
    path.write_bytes(set_pdf_metadata(source, **NEW))
    info = pdfinfo(path)
    assert [info[key] for key in ("Title", "Author", "Subject", "Keywords", "Creator", "Producer")] == list(
        NEW.values()
    )
    tags = exiftool(path)
    for name, tag in [("title", "Title"), ("author", "Author"), ("subject", "Subject"), ("keywords", "Keywords"),
                      ("creator", "Creator"), ("producer", "Producer")]:  # fmt: skip
        assert tags[f"PDF:{tag}"] == NEW[name]
    if source is XMP:
        assert tags["XMP-dc:Title"] == NEW["title"]
        assert tags["XMP-dc:Creator"] == NEW["author"]
        assert tags["XMP-dc:Description"] == NEW["subject"]
        assert tags["XMP-pdf:Keywords"] == NEW["keywords"]
        assert sorted(str(tags["XMP-dc:Subject"]).split(", ")) == ["engines", "finance"]
        assert tags["XMP-xmp:CreatorTool"] == NEW["creator"]
        assert tags["XMP-pdf:Producer"] == NEW["producer"]
    assert pdf_info(path.read_bytes()).metadata == NEW
    subprocess.run([require_tool("qpdf"), "--check", str(path)], capture_output=True, check=True)


@pytest.mark.tools
@pytest.mark.parametrize("source", [PLAIN, XMP], ids=["info only", "info and xmp"])
def test_an_empty_value_clears_and_a_missing_one_keeps(tmp_path: Path, source: bytes) -> None:
    path = tmp_path / "out.pdf"
    path.write_bytes(set_pdf_metadata(source, title="", keywords=""))
    info = pdfinfo(path)
    assert "Title" not in info and "Keywords" not in info and info["Author"] == "Old author"
    tags = exiftool(path)
    assert not any(tag.endswith((":Title", ":Keywords", "dc:Subject")) for tag in tags)
    assert tags["PDF:Author"] == "Old author"
    if source is XMP:
        assert tags["XMP-dc:Creator"] == "Old author"
    assert pdf_info(path.read_bytes()).metadata == {"author": "Old author"}


@pytest.mark.tools
def test_metadata_file_variant(tmp_path: Path) -> None:
    source, out = tmp_path / "in.pdf", tmp_path / "out.pdf"
    source.write_bytes(XMP)
    set_pdf_metadata_file(str(source), str(out), title="From a file")
    assert pdfinfo(out)["Title"] == "From a file"
    assert exiftool(out)["XMP-dc:Title"] == "From a file"


def test_non_latin_text_round_trips() -> None:
    assert pdf_info(set_pdf_metadata(PLAIN, title="日本語の報告書")).metadata["title"] == "日本語の報告書"


def test_the_producer_is_not_replaced_by_the_library() -> None:
    pdf = pikepdf.Pdf.open(io.BytesIO(set_pdf_metadata(XMP, title="x")))
    assert "/Producer" not in pdf.docinfo
    with pdf.open_metadata() as xmp:
        assert "pdf:Producer" not in xmp and "xmp:MetadataDate" not in xmp


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"title": "x" * 4_001}, "at most 4,000"),
        ({"author": "a\x00b"}, "control character"),
        ({"subject": "bell\x07"}, "control character"),
        ({"keywords": "not a character \uffff"}, "control character"),
    ],
)
def test_metadata_refuses_bad_values(fields: dict[str, str], reason: str) -> None:
    with pytest.raises(InvalidInput, match=reason):
        set_pdf_metadata(PLAIN, **fields)


def test_line_breaks_and_tabs_are_text_xml_carries() -> None:
    subject = "First line\nsecond line\r\n\tindented,\u0085next line"
    assert pdf_info(set_pdf_metadata(XMP, subject=subject)).metadata["subject"] == subject


def test_a_value_at_the_limit_is_written() -> None:
    assert pdf_info(set_pdf_metadata(PLAIN, keywords="k" * 4_000)).metadata["keywords"] == "k" * 4_000


def test_metadata_refuses_what_is_not_a_pdf() -> None:
    with pytest.raises(InvalidInput, match="not a PDF"):
        set_pdf_metadata(b"%!PS-Adobe", title="x")
