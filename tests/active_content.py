"""Active content in PDFs, as an independent reader sees it (`qpdf --json`), and a form that carries every kind."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import tempfile
from typing import Any

import pikepdf
import pytest

from tests.pdf_fixtures import make_form_pdf

# What counts as active content, by dictionary key and by action type.
ACTIVE_KEYS = frozenset({"/OpenAction", "/AA", "/JS", "/JavaScript", "/EmbeddedFiles", "/XFA"})
ACTIVE_ACTIONS = frozenset({"/JavaScript", "/Launch", "/SubmitForm", "/ImportData"})


def active_content(data: bytes, *, password: str | None = None) -> list[str]:
    """The active content `qpdf --json` finds in the document's objects (sorted, repeated per place)."""
    if shutil.which("qpdf") is None:
        pytest.skip("qpdf is not installed (make tools)")
    command = ["qpdf", "--json", "--json-key=qpdf", "--json-stream-data=none"]
    if password is not None:
        command.append(f"--password={password}")
    with tempfile.NamedTemporaryFile(suffix=".pdf") as file:
        file.write(data)
        file.flush()
        result = subprocess.run([*command, file.name], capture_output=True, check=False)
    assert result.returncode in (0, 3), result.stderr
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for key, child in value.items():
                if key in ACTIVE_KEYS:
                    found.append(key)
                if key == "/S" and child in ACTIVE_ACTIONS:
                    found.append(child)
                if key == "/Subtype" and child == "/FileAttachment":
                    found.append(child)
                walk(child)
        elif isinstance(value, list):
            for child in value:
                walk(child)

    walk(json.loads(result.stdout)["qpdf"][1])
    return sorted(found)


def make_active_pdf() -> bytes:
    """The test form with JavaScript everywhere it can be: on opening, in the name tree, on the page and a
    field, a launch link, an embedded file and an attachment annotation; and a URI link and a GoTo bookmark."""
    pdf = pikepdf.Pdf.open(io.BytesIO(make_form_pdf()))
    js = pikepdf.Dictionary(S=pikepdf.Name.JavaScript, JS=pikepdf.String("app.alert('hi')"))
    pdf.Root.OpenAction = pdf.make_indirect(js)
    pdf.Root.AA = pikepdf.Dictionary(WC=js)
    attachment = pikepdf.AttachedFileSpec(
        pdf, b"MZ payload", filename="run.exe", description="", mime_type="", creation_date="", mod_date=""
    )
    pdf.attachments["run.exe"] = attachment
    pdf.Root.Names.JavaScript = pikepdf.Dictionary(Names=pikepdf.Array([pikepdf.String("boot"), js]))
    page = pdf.pages[0]
    page.obj.AA = pikepdf.Dictionary(O=js)
    field = pdf.Root.AcroForm.Fields[0]
    field.AA = pikepdf.Dictionary(K=js, V=js)
    launch = pikepdf.Dictionary(S=pikepdf.Name.Launch, F=pikepdf.String("calc.exe"))
    uri = pikepdf.Dictionary(S=pikepdf.Name.URI, URI=pikepdf.String("https://example.com/"))
    annots = page.obj.Annots
    for action, rect in ((launch, [10, 10, 50, 30]), (uri, [60, 10, 100, 30])):
        annots.append(
            pdf.make_indirect(
                pikepdf.Dictionary(Type=pikepdf.Name.Annot, Subtype=pikepdf.Name.Link, Rect=rect, A=action)
            )
        )
    annots.append(
        pdf.make_indirect(
            pikepdf.Dictionary(
                Type=pikepdf.Name.Annot, Subtype=pikepdf.Name.FileAttachment, Rect=[110, 10, 130, 30], FS=attachment.obj
            )
        )
    )
    with pdf.open_outline() as outline:
        outline.root.append(pikepdf.OutlineItem("Start", 0))
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()
