"""`.ci/check_build.py`, which `make template-check` runs on `sam build`'s output: it passes bytecode of
Python 3.12 compiled unchecked-hash from the shipped source, and refuses anything else."""

from __future__ import annotations

import importlib.util
import py_compile
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_checker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_build", ROOT / ".ci" / "check_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def python312() -> str:
    """The Python 3.12 the Makefile's sam-build would use, or skip the assertion that needs it."""
    found = subprocess.run(["make", "-s", "python312"], cwd=ROOT, capture_output=True, text=True, check=True)
    if not found.stdout.strip():
        pytest.skip("no Python 3.12 here (make python312 prints none)")
    return found.stdout.strip()


@pytest.fixture
def function_dir(tmp_path: Path) -> Path:
    function = tmp_path / "build" / "TextFunction"
    function.mkdir(parents=True)
    (function / "app.py").write_text("handler = None\n")
    return function


def run_checker(build: Path, capsys: pytest.CaptureFixture[str], *options: str) -> tuple[int, str]:
    code = load_checker().main([str(build), *options])
    return code, capsys.readouterr().out


def test_source_without_bytecode_fails(function_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run_checker(function_dir.parent, capsys)
    assert code == 1
    assert "TextFunction/app.py: no bytecode" in out


def test_without_python312_the_bytecode_check_is_skipped_aloud(
    function_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = run_checker(function_dir.parent, capsys, "--no-bytecode")
    assert code == 0
    assert "SKIPPED: the bytecode check" in out
    assert "TextFunction: 1 modules, 0 kB unzipped" in out


def test_bytecode_of_another_python_fails(function_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if sys.version_info[:2] == (3, 12):
        pytest.skip("this interpreter writes Python 3.12's bytecode")
    pyc = function_dir / "__pycache__" / "app.cpython-312.pyc"
    pyc.parent.mkdir()
    py_compile.compile(
        str(function_dir / "app.py"), cfile=str(pyc), invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH
    )
    code, out = run_checker(function_dir.parent, capsys)
    assert code == 1
    assert "TextFunction/app.py: not Python 3.12's bytecode" in out


def test_python312_unchecked_hash_bytecode_passes_and_an_edit_fails(
    function_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    python = python312()
    compile_all = [python, "-m", "compileall", "-q", "--invalidation-mode"]
    subprocess.run([*compile_all, "timestamp", str(function_dir)], check=True)
    code, out = run_checker(function_dir.parent, capsys)
    assert code == 1 and "not unchecked-hash bytecode" in out

    subprocess.run([*compile_all, "unchecked-hash", "-f", str(function_dir)], check=True)
    code, out = run_checker(function_dir.parent, capsys)
    assert code == 0, out
    assert "TextFunction: 1 of 1 modules ship their bytecode" in out

    (function_dir / "app.py").write_text("handler = 1\n")
    code, out = run_checker(function_dir.parent, capsys)
    assert code == 1 and "bytecode of another source" in out


def test_a_function_with_its_layers_over_250_mb_fails(function_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    layer = function_dir.parent / "DepsLayer" / "python"
    layer.mkdir(parents=True)
    with open(layer / "big.so", "wb") as big:
        big.truncate(250 * 1000 * 1000)
    code, out = run_checker(function_dir.parent, capsys, "--no-bytecode")
    assert code == 1
    assert "Over Lambda's unzipped limit" in out


def test_the_runtime_the_cross_install_and_the_bytecode_are_one_python() -> None:
    from fileapi.local.template import load_template

    template = load_template()
    runtimes = {template["Globals"]["Function"]["Runtime"]}
    for resource in template["Resources"].values():
        if resource["Type"] == "AWS::Serverless::LayerVersion":
            runtimes.update(resource["Properties"]["CompatibleRuntimes"])
    # The Makefile's PYTHON312 and check_build.MAGIC_312 are Python 3.12's: a new runtime changes them together.
    assert runtimes == {"python3.12"}
    assert "--python-version 3.12" in (ROOT / "layers" / "Makefile").read_text()


def test_the_checker_knows_python312s_magic_number() -> None:
    magic = subprocess.run(
        [python312(), "-c", "import importlib.util, sys; sys.stdout.write(importlib.util.MAGIC_NUMBER.hex())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert bytes.fromhex(magic) == load_checker().MAGIC_312
