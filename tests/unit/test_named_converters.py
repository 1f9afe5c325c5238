"""A converter the catalogue names (fileapi.catalogue.converters.Named) is the converter it names: called, it
answers as the function does; pickled for a worker, it arrives as the function itself."""

from __future__ import annotations

import base64
import pickle
import subprocess
import sys

from fileapi.catalogue.converters import Named
from fileapi.catalogue.registry import FAMILIES, family
from fileapi.local.template import PROJECT_ROOT


def test_every_named_converter_is_a_module_level_function_of_its_module() -> None:
    converters = [conversion.convert for name in FAMILIES for conversion in family(name)]
    named = [converter for converter in converters if isinstance(converter, Named)]
    assert named
    for converter in named:
        function = converter.function
        assert callable(function) and not isinstance(function, Named)
        assert (function.__module__, function.__qualname__) == (converter.__module__, converter.__name__)


def test_a_named_converter_calls_its_function() -> None:
    converter = Named("fileapi.convert.encoding", "encode_base64")
    assert converter(b"hi") == base64.b64encode(b"hi")
    assert converter.__name__ == "encode_base64"
    assert repr(converter) == "Named('fileapi.convert.encoding', 'encode_base64')"


def test_a_pickled_named_converter_arrives_as_the_function() -> None:
    from fileapi.convert.encoding import encode_base64

    assert pickle.loads(pickle.dumps(Named("fileapi.convert.encoding", "encode_base64"))) is encode_base64


def test_naming_a_converter_does_not_import_its_module() -> None:
    code = (
        "import sys; from fileapi.catalogue.converters import Named; "
        "Named('fileapi.convert.csv_json', 'csv_to_json'); print('fileapi.convert.csv_json' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=PROJECT_ROOT / "shared"
    )
    assert result.stdout.strip() == "False"
