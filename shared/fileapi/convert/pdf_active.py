"""Active content of a PDF, removed by the endpoints that rewrite a document unless the caller keeps it.

Removed: JavaScript (the document's /Names/JavaScript, and every action of type JavaScript), actions run
without a click (the catalog's /OpenAction, /AA on the catalog, pages, annotations and form fields), every
action other than navigation (/GoTo, /URI, /Named are kept, the rest, /Launch and /SubmitForm among them,
go with their whole /Next chain), XFA forms (their scripts), embedded files (/Names/EmbeddedFiles) and file
attachment annotations. Links and bookmarks that navigate keep working.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fileapi.convert.pdf_errors import reading

if TYPE_CHECKING:
    import pikepdf

# Actions that only navigate (ISO 32000-1, 12.6.4): everything else can run code, open files or send data.
SAFE_ACTIONS = frozenset({"/GoTo", "/URI", "/Named"})
# Objects visited per walk (fields, outline items, an action's /Next chain): bounds a crafted cycle or tree.
MAX_NODES = 100_000


def remove_active_content(pdf: pikepdf.Pdf) -> int:
    """Remove the document's active content in place (see the module's docstring); returns how many
    entries (actions, name trees, attachments) were removed."""
    import pikepdf

    removed = 0
    with reading("active content"):
        root = pdf.Root
        removed += _drop(root, "/OpenAction", "/AA")
        names = root.get("/Names")
        if isinstance(names, pikepdf.Dictionary):
            removed += _drop(names, "/JavaScript", "/EmbeddedFiles")
        form = root.get("/AcroForm")
        if isinstance(form, pikepdf.Dictionary):
            removed += _drop(form, "/XFA") + _clean_tree(form.get("/Fields"), "/Kids")
        for page in pdf.pages:
            removed += _drop(page.obj, "/AA")
            annotations = page.obj.get("/Annots")
            if isinstance(annotations, pikepdf.Array):
                kept = [annot for annot in annotations if not _is_attachment(annot)]
                removed += sum(_clean(annot) for annot in kept) + len(annotations) - len(kept)
                if len(kept) != len(annotations):
                    page.obj["/Annots"] = pikepdf.Array(kept)
        outlines = root.get("/Outlines")
        if isinstance(outlines, pikepdf.Dictionary):
            removed += _clean_outline(outlines.get("/First"))
    return removed


def without_active_content(data: bytes) -> bytes:
    """`data` rewritten without its active content (for documents written by pypdf); `data` itself when it
    has none."""
    from fileapi.convert.pdf_io import open_pdf, save_pdf

    pdf = open_pdf(data, what="the result")
    return save_pdf(pdf) if remove_active_content(pdf) else data


def _drop(node: Any, *names: str) -> int:
    present = [name for name in names if name in node]
    for name in present:
        del node[name]
    return len(present)


def _is_attachment(annot: Any) -> bool:
    import pikepdf

    return isinstance(annot, pikepdf.Dictionary) and annot.get("/Subtype") == pikepdf.Name.FileAttachment


def _clean(node: Any) -> int:
    """Drop a dictionary's automatic actions, and its click action unless it only navigates."""
    import pikepdf

    if not isinstance(node, pikepdf.Dictionary):
        return 0
    removed = _drop(node, "/AA")
    if "/A" in node and not _navigates(node.get("/A")):
        del node["/A"]
        removed += 1
    return removed


def _navigates(action: Any) -> bool:
    """True when the action and every action of its /Next chain only navigate."""
    import pikepdf

    pending, seen = [action], 0
    while pending:
        seen += 1
        current = pending.pop()
        if seen > MAX_NODES or not isinstance(current, pikepdf.Dictionary):
            return False
        if str(current.get("/S")) not in SAFE_ACTIONS:
            return False
        following = current.get("/Next")
        if isinstance(following, pikepdf.Array):
            pending.extend(following)
        elif following is not None:
            pending.append(following)
    return True


def _clean_tree(nodes: Any, children: str) -> int:
    """Clean every dictionary of a tree of arrays of dictionaries (form fields and their /Kids)."""
    import pikepdf

    pending = list(nodes) if isinstance(nodes, pikepdf.Array) else []
    visited: set[tuple[int, int]] = set()
    removed = 0
    while pending and len(visited) < MAX_NODES:
        node = pending.pop()
        if not isinstance(node, pikepdf.Dictionary):
            continue
        if node.is_indirect:
            if node.objgen in visited:
                continue
            visited.add(node.objgen)
        removed += _clean(node)
        kids = node.get(children)
        if isinstance(kids, pikepdf.Array):
            pending.extend(kids)
    return removed


def _clean_outline(first: Any) -> int:
    """Clean every outline item (bookmarks: /First and /Next links)."""
    import pikepdf

    pending = [first]
    visited: set[tuple[int, int]] = set()
    removed = 0
    while pending and len(visited) < MAX_NODES:
        item = pending.pop()
        if not isinstance(item, pikepdf.Dictionary) or (item.is_indirect and item.objgen in visited):
            continue
        if item.is_indirect:
            visited.add(item.objgen)
        removed += _clean(item)
        pending.extend(child for child in (item.get("/First"), item.get("/Next")) if child is not None)
    return removed
