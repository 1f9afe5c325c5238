"""Active content is removed by the six endpoints that rewrite a PDF, unless the caller keeps it; checked by
an independent reader (qpdf --json)."""

from __future__ import annotations

import io
from collections.abc import Callable

import pikepdf
import pytest

from fileapi.convert.pdf import rotate_pdf
from fileapi.convert.pdf_edit import compress_pdf, protect_pdf, watermark_pdf
from fileapi.convert.pdf_forms import fill_form, flatten_form
from tests.active_content import active_content, make_active_pdf

pytestmark = pytest.mark.tools

ACTIVE = make_active_pdf()
PASSWORD = "open-sesame"

CONVERTERS: dict[str, Callable[..., bytes]] = {
    "flatten": lambda data, **keep: flatten_form(data, **keep),
    "compress": lambda data, **keep: compress_pdf(data, strip_metadata=True, **keep).data,
    "rotate": lambda data, **keep: rotate_pdf(data, degrees=90, **keep),
    "watermark": lambda data, **keep: watermark_pdf(data, text="DRAFT", **keep),
    "protect": lambda data, **keep: protect_pdf(data, user_password=PASSWORD, **keep),
    "fill-form": lambda data, **keep: fill_form(data, fields={"name": "Ada"}, **keep),
}


def opened(data: bytes, name: str) -> pikepdf.Pdf:
    return pikepdf.Pdf.open(io.BytesIO(data), password=PASSWORD if name == "protect" else "")


def test_the_test_document_has_every_kind_of_active_content() -> None:
    assert active_content(ACTIVE) == [
        "/AA", "/AA", "/AA", "/EmbeddedFiles", "/FileAttachment", "/JS", "/JavaScript", "/JavaScript", "/Launch",
        "/OpenAction",
    ]  # fmt: skip


@pytest.mark.parametrize("name", sorted(CONVERTERS))
def test_active_content_is_removed_by_default(name: str) -> None:
    result = CONVERTERS[name](ACTIVE)
    assert active_content(result, password=PASSWORD if name == "protect" else None) == []
    pdf = opened(result, name)
    links = [annot for annot in pdf.pages[0].obj.get("/Annots", []) if annot.get("/Subtype") == "/Link"]
    assert [str(link.A.URI) for link in links if "/A" in link] == ["https://example.com/"]  # links stay
    assert [item.title for item in pdf.open_outline().root] == ["Start"]  # bookmarks stay


@pytest.mark.parametrize("name", sorted(CONVERTERS))
def test_active_content_is_kept_on_request(name: str) -> None:
    kept = active_content(
        CONVERTERS[name](ACTIVE, keep_active_content=True), password=PASSWORD if name == "protect" else None
    )
    # flatten and fill-form with flatten remove the form's widgets; the rest is what the input had
    assert {"/OpenAction", "/JavaScript", "/EmbeddedFiles", "/Launch"} <= set(kept)


def test_a_navigation_chain_with_a_script_goes_whole() -> None:
    pdf = pikepdf.Pdf.open(io.BytesIO(ACTIVE))
    script = pikepdf.Dictionary(S=pikepdf.Name.JavaScript, JS=pikepdf.String("x()"))
    chained = pikepdf.Dictionary(S=pikepdf.Name.URI, URI=pikepdf.String("https://a.example/"), Next=script)
    pdf.pages[0].obj.Annots.append(
        pdf.make_indirect(
            pikepdf.Dictionary(Type=pikepdf.Name.Annot, Subtype=pikepdf.Name.Link, Rect=[0, 0, 5, 5], A=chained)
        )
    )
    out = io.BytesIO()
    pdf.save(out)
    assert active_content(rotate_pdf(out.getvalue(), degrees=180)) == []
