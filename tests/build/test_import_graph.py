"""The modules of `shared/fileapi` import one another without a circle.

The graph is read from the source with `ast`: every import statement counts, at module level, inside a
function, or under `if TYPE_CHECKING:` (a circle hidden there is still a circle of meaning).
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parents[2] / "shared"


@dataclass(frozen=True)
class Edge:
    """`source` imports `target` on `line`."""

    source: str
    target: str
    line: int


def module_names(root: Path) -> dict[str, Path]:
    """Every module under `root` (a folder holding top-level packages) by dotted name."""
    modules: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def imported_names(module: str, path: Path) -> Iterator[tuple[str, int]]:
    """The dotted names `module` imports, each with its line (for `from a import b`: `a.b`, which the caller
    takes as the module `a` when `a.b` is a name defined in it)."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module.split(".") if is_package else module.split(".")[:-1]
                anchor = package[: len(package) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                yield f"{base}.{alias.name}", node.lineno


def import_edges(root: Path, prefix: str) -> list[Edge]:
    """The imports between modules under `root` whose names start with `prefix`, one edge per statement
    and target (an import of `a.b.c` where `a.b.c` is no module of ours counts as one of `a.b`)."""
    modules = {name: path for name, path in module_names(root).items() if name.split(".")[0] == prefix}
    edges: dict[tuple[str, str], Edge] = {}
    for source, path in modules.items():
        for name, line in imported_names(source, path):
            target = name
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != source and (source, target) not in edges:
                edges[(source, target)] = Edge(source, target, line)
    return sorted(edges.values(), key=lambda edge: (edge.source, edge.target))


def circles(edges: list[Edge]) -> list[list[Edge]]:
    """One shortest circle through each strongly connected group of modules (Tarjan's algorithm), as the
    edges that close it, starting from the group's first module by name."""
    graph: dict[str, list[str]] = {}
    for edge in edges:
        graph.setdefault(edge.source, []).append(edge.target)
        graph.setdefault(edge.target, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    by_pair = {(edge.source, edge.target): edge for edge in edges}
    found = []
    for group in sorted(groups):
        members = set(group)
        path = _shortest_way_back(group[0], graph, members)
        found.append([by_pair[(source, target)] for source, target in itertools.pairwise(path)])
    return found


def _shortest_way_back(start: str, graph: dict[str, list[str]], members: set[str]) -> list[str]:
    """The modules of a shortest circle from `start` back to it, within `members` (breadth first)."""
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for target in sorted(graph[node]):
                if target not in members:
                    continue
                if target == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [start, *reversed(path[:-1]), start] if node != start else [start, start]
                if target not in came_from:
                    came_from[target] = node
                    following.append(target)
        frontier = following
    raise AssertionError(f"{start} is in a group without a circle back to it")


def describe(circle: list[Edge]) -> str:
    return " -> ".join([circle[0].source, *(f"{edge.target} (line {edge.line})" for edge in circle)])


def test_shared_fileapi_has_no_import_circle() -> None:
    found = circles(import_edges(PACKAGE_ROOT, "fileapi"))
    assert not found, "import circles in shared/fileapi:\n" + "\n".join(map(describe, found))


def test_the_layer_imports_nothing_of_the_tests_or_the_benches() -> None:
    """Test-only code (in-memory stores, cold-import sets) lives under tests/, outside the Lambda layer."""
    reached = sorted(
        f"{module} imports {name} (line {line})"
        for module, path in module_names(PACKAGE_ROOT).items()
        for name, line in imported_names(module, path)
        if name.split(".")[0] in {"tests", "bench"}
    )
    assert reached == []


def circles_in(root: Path, files: dict[str, str]) -> list[str]:
    """The circles, described, among the modules of package `pkg` made of `files` (path: text) under `root`."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return [describe(circle) for circle in circles(import_edges(root, "pkg"))]


def test_a_circle_through_a_type_checking_import_is_named(tmp_path: Path) -> None:
    found = circles_in(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg.b import B\n",
            "pkg/b.py": "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from pkg.a import A\n",
            "pkg/c.py": "import pkg.a\n",
        },
    )
    assert found == ["pkg.a -> pkg.b (line 1) -> pkg.a (line 4)"]


def test_a_circle_through_a_function_level_relative_import_is_named(tmp_path: Path) -> None:
    found = circles_in(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/sub/__init__.py": "",
            "pkg/sub/one.py": "def f() -> None:\n    from .two import g\n",
            "pkg/sub/two.py": "from pkg.sub import three\n",
            "pkg/sub/three.py": "from .. import sub\nfrom ..sub import one\n",
        },
    )
    assert found == ["pkg.sub.one -> pkg.sub.two (line 2) -> pkg.sub.three (line 1) -> pkg.sub.one (line 2)"]


def test_modules_without_a_circle_pass(tmp_path: Path) -> None:
    files = {"pkg/__init__.py": "from pkg.a import A\n", "pkg/a.py": "A = 1\n", "pkg/b.py": "from pkg import a\n"}
    assert circles_in(tmp_path, files) == []


def package_edges(edges: list[Edge], prefix: str) -> list[Edge]:
    """`edges` between the top-level packages (or modules) under `prefix`: `fileapi.web.x -> fileapi.operations.y`
    is `fileapi.web -> fileapi.operations` (the first such import of each pair)."""
    depth = len(prefix.split(".")) + 1
    found: dict[tuple[str, str], Edge] = {}
    for edge in edges:
        source, target = (".".join(name.split(".")[:depth]) for name in (edge.source, edge.target))
        if source != target and (source, target) not in found:
            found[(source, target)] = Edge(source, target, edge.line)
    return list(found.values())


def test_the_packages_of_shared_fileapi_import_one_another_without_a_circle() -> None:
    """Layers import downward only (docs/architecture.md): web, operations, catalogue, the domain packages,
    converters, storage; two packages that import each other are a circle even when no module pair is."""
    found = circles(package_edges(import_edges(PACKAGE_ROOT, "fileapi"), "fileapi"))
    assert not found, "package circles in shared/fileapi:\n" + "\n".join(map(describe, found))


def test_the_benches_import_one_another_without_a_circle() -> None:
    found = circles(import_edges(PACKAGE_ROOT.parent, "bench"))
    assert not found, "import circles in bench/:\n" + "\n".join(map(describe, found))


def test_a_package_circle_is_found_when_no_module_pair_makes_one() -> None:
    edges = [Edge("fileapi.a.x", "fileapi.b.y", 1), Edge("fileapi.b.z", "fileapi.a.w", 2)]
    assert circles(edges) == []
    assert [describe(circle) for circle in circles(package_edges(edges, "fileapi"))] == [
        "fileapi.a -> fileapi.b (line 1) -> fileapi.a (line 2)"
    ]
