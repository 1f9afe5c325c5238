"""Checks what `sam build` put in BUILD (default .aws-sam/build), as Lambda will load it:

- every artifact ships the bytecode of the runtime's Python: each .py has its
  __pycache__/NAME.cpython-312.pyc with Python 3.12's magic number, hash-based and unchecked (PEP 552:
  Lambda's file system is read-only, so an init can neither write a .pyc nor should it read the source to
  validate one), compiled from this very source;
- each function with both layers stays within Lambda's 250 MB unzipped limit.

Prints one line per artifact (modules with bytecode, unzipped size) and exits 1 on a failed check.
`--no-bytecode` (the Makefile's choice when it found no Python 3.12: see docs/operations.md) skips the
bytecode check, saying so, and keeps the size check."""

from __future__ import annotations

import _imp
import sys
from pathlib import Path

MAGIC_312 = (3531).to_bytes(2, "little") + b"\r\n"  # importlib.util.MAGIC_NUMBER of Python 3.12
UNCHECKED_HASH = 0b01  # PEP 552 flags: hash-based, do not check the source
UNZIPPED_LIMIT = 250 * 1000 * 1000  # bytes: a function and its layers, unzipped (Lambda's quotas page)
LAYERS = ("CodeLayer", "DepsLayer")


def problem(source: Path) -> str | None:
    """What is wrong with `source`'s bytecode, or None."""
    pyc = source.parent / "__pycache__" / f"{source.stem}.cpython-312.pyc"
    if not pyc.is_file():
        return "no bytecode"
    header = pyc.read_bytes()[:16]
    if header[:4] != MAGIC_312:
        return "not Python 3.12's bytecode"
    if int.from_bytes(header[4:8], "little") != UNCHECKED_HASH:
        return "not unchecked-hash bytecode"
    if header[8:16] != _imp.source_hash(int.from_bytes(MAGIC_312, "little"), source.read_bytes()):
        return "bytecode of another source"
    return None


def megabytes(size: int) -> str:
    return f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size / 1e3:.0f} kB"


def main(arguments: list[str]) -> int:
    check_bytecode = "--no-bytecode" not in arguments
    paths = [argument for argument in arguments if argument != "--no-bytecode"]
    build = Path(paths[0] if paths else ".aws-sam/build")
    artifacts = sorted(path for path in build.iterdir() if path.is_dir())
    if not artifacts:
        print(f"{build}: no artifacts (run sam build first)")
        return 1
    if not check_bytecode:
        print("SKIPPED: the bytecode check (no Python 3.12 built this; the sizes are still checked)")
    failed = False
    sizes: dict[str, int] = {}
    for artifact in artifacts:
        sources = sorted(artifact.rglob("*.py"))
        problems = [(source, found) for source in sources if check_bytecode and (found := problem(source))]
        sizes[artifact.name] = sum(path.stat().st_size for path in artifact.rglob("*") if path.is_file())
        modules = f"{len(sources) - len(problems)} of {len(sources)} modules ship their bytecode"
        if not check_bytecode:
            modules = f"{len(sources)} modules"
        print(f"{artifact.name}: {modules}, {megabytes(sizes[artifact.name])} unzipped")
        for source, found in problems[:5]:
            print(f"  {source.relative_to(build)}: {found}")
        failed = failed or bool(problems)
    if failed:
        print("Build with Python 3.12 available (PYTHON312=/path/to/python3.12 make sam-build).")
    layers = sum(sizes.get(layer, 0) for layer in LAYERS)
    largest = max((size for name, size in sizes.items() if name not in LAYERS), default=0)
    print(f"Largest function with both layers: {megabytes(layers + largest)} of {megabytes(UNZIPPED_LIMIT)}")
    if layers + largest > UNZIPPED_LIMIT:
        print("Over Lambda's unzipped limit: trim the dependency layer (layers/Makefile).")
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
