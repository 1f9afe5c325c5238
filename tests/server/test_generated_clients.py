"""Clients generated from the OpenAPI document as a user generates them (docs/api.md, "Generating a client"):
openapi-python-client 0.29 and openapi-typescript 7 + openapi-fetch, each with its configuration in
clients/generators/, calling one operation of every kind against a real `fileapi serve`: JSON in and out,
raw bytes in, bytes out, text in."""

from __future__ import annotations

import base64
import hashlib
import importlib
import io
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from pkgutil import walk_packages
from typing import Any

import httpx
import pytest
import zxingcpp
from PIL import Image

from fileapi.local.template import PROJECT_ROOT
from fileapi.metering.admin import create_key
from fileapi.metering.storage import AccountStore
from fileapi.web.spec import OPENAPI_PATH
from tests.helpers import require_tool
from tests.server.conftest import FileApi, StartServers
from tests.server.operations_client import WAIT_BOUND_SECONDS

pytestmark = pytest.mark.server
GENERATORS = PROJECT_ROOT / "clients" / "generators"
NODE_MODULES = PROJECT_ROOT / "clients" / "node" / "node_modules"
VENV_BIN = Path(sys.executable).parent
WARNINGS_FOUND = "Warning(s) encountered while generating. Client was generated, but some pieces may be missing"
PACKAGE = "fileapi_openapi_client"  # the configuration's package_name_override

HASHED = b"hello"
TEXT = "Hello world. How are you?"
# What every client must get back (the operations' own results, computed here independently).
EXPECTED = {
    "hex": "#ff0000",
    "rgb": {"r": 255, "g": 0, "b": 0},
    "sha256": hashlib.sha256(HASHED).hexdigest(),
    "width": 20,
    "height": 15,
    "words": 5,
    "characters": len(TEXT),
}


def _png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (10, 200, 30)).save(out, "PNG")
    return out.getvalue()


@pytest.fixture()
def api(start_servers: StartServers, server_store: AccountStore) -> Iterator[tuple[str, str]]:
    (base_url,) = start_servers(1)
    yield base_url, create_key(server_store, email="generated@example.com", plan="business")


def _run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, f"{command[0]} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


def _operation_count() -> int:
    spec = json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))
    return sum(len(methods) for methods in spec["paths"].values())


OPERATION_COUNT = _operation_count()


def _known_warnings() -> list[str]:
    """What openapi-python-client prints about the document, as the configuration explains: for each text
    media type of a request body (the operation's body is its application/octet-stream), in document order."""
    spec = json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))
    lines = []
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            content = operation.get("requestBody", {}).get("content", {})
            for media_type in (media for media in content if media.startswith("text/")):
                assert "application/octet-stream" in content, f"{path}: a text body the generator cannot build"
                lines += [
                    f"WARNING parsing {method.upper()} {path} within {operation['tags'][0].lower()}.",
                    f"Unsupported content type {media_type}",
                ]
    return lines


def _generated_python_client(folder: Path) -> Path:
    """Generate the Python client into `folder`; assert the generator printed only the known warnings."""
    output = folder / "python-client"
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}  # its ruff post-hooks
    printed = _run(
        [
            str(VENV_BIN / "openapi-python-client"),
            "generate",
            "--path",
            str(OPENAPI_PATH),
            "--output-path",
            str(output),
            "--config",
            str(GENERATORS / "openapi-python-client.yaml"),
        ],
        folder,
        env,
    )
    # Every warning, skipped operation or failed post-hook is printed; the lines that are not the schemas
    # it quotes (indented JSON) must be the known warnings between the generator's own first and last lines.
    said = [line for line in printed.splitlines() if line and not line.startswith((" ", "{", "}"))]
    assert said[:2] == [f"Generating {output}", WARNINGS_FOUND], printed
    assert said[2:-1] == _known_warnings(), printed
    assert said[-1].startswith("If you believe this was a mistake"), printed
    return output


@contextmanager
def _imported(output: Path) -> Iterator[None]:
    """The generated package at `output` importable within the block, and forgotten after it."""
    sys.path.insert(0, str(output))
    try:
        yield
    finally:
        sys.path.remove(str(output))
        for name in [module for module in sys.modules if module.split(".")[0] == PACKAGE]:
            del sys.modules[name]


def test_python_client_generated_from_the_document_calls_every_kind_of_operation(
    api: tuple[str, str], tmp_path: Path
) -> None:
    base_url, key = api
    output = _generated_python_client(tmp_path)
    checked = _run([str(VENV_BIN / "mypy"), "--strict", "--cache-dir", str(tmp_path / "mypy"), PACKAGE], output)
    assert checked.startswith("Success: no issues found"), checked
    with _imported(output):
        api_package: Any = importlib.import_module(f"{PACKAGE}.api")
        operations = [
            importlib.import_module(module.name) for module in walk_packages(api_package.__path__, f"{PACKAGE}.api.")
        ]
        assert len([module for module in operations if hasattr(module, "sync_detailed")]) == OPERATION_COUNT
        client_module: Any = importlib.import_module(f"{PACKAGE}.client")
        types: Any = importlib.import_module(f"{PACKAGE}.types")
        models: Any = importlib.import_module(f"{PACKAGE}.models")
        ops = {module.__name__.rsplit(".", 1)[1]: module for module in operations}
        client = client_module.AuthenticatedClient(base_url=base_url, token=key, raise_on_unexpected_status=True)
        with client:
            color = ops["color_convert"].sync(client=client, body=models.ColorRequest(color="red"))
            digest = ops["file_hash"].sync(
                client=client, body=types.File(payload=io.BytesIO(HASHED)), algorithm=models.HashAlgorithm.SHA256
            )
            resized = ops["image_resize"].sync(
                client=client, body=types.File(payload=io.BytesIO(_png(40, 30))), width=20
            )
            counts = ops["text_word_count"].sync(client=client, body=types.File(payload=io.BytesIO(TEXT.encode())))

    assert isinstance(color, models.ColorConvertResult), color
    assert (color.hex_, color.rgb.to_dict()) == (EXPECTED["hex"], EXPECTED["rgb"])
    assert isinstance(digest, models.FileHashResult), digest
    assert (digest.hex_, digest.bytes_) == (EXPECTED["sha256"], len(HASHED))
    assert isinstance(resized, types.File), resized
    image = Image.open(resized.payload)
    assert (image.format, image.size) == ("PNG", (EXPECTED["width"], EXPECTED["height"]))
    assert (counts.words, counts.characters) == (EXPECTED["words"], EXPECTED["characters"])


def test_python_client_generated_from_the_document_runs_an_operation_over_an_upload(
    file_api: FileApi, tmp_path: Path
) -> None:
    key = create_key(file_api.store, email="generated-operation@example.com", plan="business")
    output = _generated_python_client(tmp_path)
    image = _png(40, 30)
    with _imported(output):
        client_module: Any = importlib.import_module(f"{PACKAGE}.client")
        types: Any = importlib.import_module(f"{PACKAGE}.types")
        models: Any = importlib.import_module(f"{PACKAGE}.models")
        uploads_create: Any = importlib.import_module(f"{PACKAGE}.api.files.uploads_create")
        operations_get: Any = importlib.import_module(f"{PACKAGE}.api.files.operations_get")
        image_resize: Any = importlib.import_module(f"{PACKAGE}.api.image.image_resize")
        client = client_module.AuthenticatedClient(base_url=file_api.url, token=key, raise_on_unexpected_status=True)
        with client:
            request = models.UploadRequest(filename="photo.png", content_type="image/png", size=len(image))
            form = uploads_create.sync(client=client, body=request)
            files = {"file": ("photo.png", image, "image/png")}
            posted = httpx.post(form.url, data=form.fields.to_dict(), files=files)
            accepted = image_resize.sync_detailed(
                client=client, body=types.File(payload=io.BytesIO(b"")), upload=form.id, width=20
            )
            operation = accepted.parsed
            deadline = time.monotonic() + WAIT_BOUND_SECONDS
            while operation.status == models.OperationStatus.RUNNING and time.monotonic() < deadline:
                time.sleep(float(accepted.headers["retry-after"]))
                operation = operations_get.sync(operation.id, client=client)
            at_once = image_resize.sync(client=client, body=types.File(payload=io.BytesIO(image)), width=20)
            status, result = str(operation.status), operation.result

    assert posted.status_code == 204, posted.text
    assert accepted.status_code == 202
    assert accepted.headers["location"] == f"/v1/operations/{accepted.parsed.id}"
    assert status == "succeeded"
    fetched = httpx.get(result.url).content
    assert (hashlib.sha256(fetched).hexdigest(), len(fetched)) == (result.sha256, result.size)
    assert (result.content_type, fetched) == ("image/png", at_once.payload.read())
    resized = Image.open(io.BytesIO(fetched))
    assert (resized.format, resized.size) == ("PNG", (EXPECTED["width"], EXPECTED["height"]))


TS_CALLS = """\
import { readFileSync } from "node:fs";
import createClient from "openapi-fetch";
import type { components, paths } from "./fileapi.js";

const [baseUrl, key, pngPath] = process.argv.slice(2) as [string, string, string];
const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${key}` } });
// Raw bodies: sent as they are, with their media type (openapi-fetch's default is JSON).
const bytes = { "Content-Type": "application/octet-stream" };

// A conversion may also answer 202 with an operation (asked for with ?upload= or Prefer: respond-async; these
// calls ask for neither): the data's type is the answer's or the operation's, narrowed here.
type Operation = components["schemas"]["OperationResult"];
function ok<T>(answer: { data?: T | Operation; error?: unknown; response: Response }): T {
  if (answer.data === undefined) {
    throw new Error(`${answer.response.status}: ${JSON.stringify(answer.error)}`);
  }
  if (answer.response.status === 202) {
    throw new Error(`202: an operation (${(answer.data as Operation).id}), not the answer`);
  }
  return answer.data as T;
}

const color = ok(await client.POST("/v1/color/convert", { body: { color: "red" } }));
const hash = ok(
  await client.POST("/v1/file/hash", {
    params: { query: { algorithm: "sha256" } },
    body: new Blob([Buffer.from("hello")]),
    bodySerializer: (body) => body,
    headers: bytes,
  }),
);
const resized = ok(
  await client.POST("/v1/image/resize", {
    params: { query: { width: 20 } },
    body: new Blob([readFileSync(pngPath)]),
    bodySerializer: (body) => body,
    headers: bytes,
    parseAs: "arrayBuffer",
  }),
);
const png = Buffer.from(resized);
const text = "Hello world. How are you?";
const counted = ok(
  await client.POST("/v1/text/word-count", {
    body: text,
    bodySerializer: (body) => body,
    headers: { "Content-Type": "text/plain; charset=utf-8" },
  }),
);
// openapi-fetch's default: the string sent as JSON (with its quotes), which the API reads as its text.
const countedJson = ok(await client.POST("/v1/text/word-count", { body: text }));
// Only the required field: every other one has a default, so the generated type leaves it optional.
const qr = ok(await client.POST("/v1/qr/generate", { body: { text: "https://example.com" }, parseAs: "arrayBuffer" }));
console.log(
  JSON.stringify({
    hex: color.hex,
    rgb: color.rgb,
    sha256: hash.hex,
    width: png.readUInt32BE(16),
    height: png.readUInt32BE(20),
    words: counted.words,
    characters: counted.characters,
    json: { words: countedJson.words, characters: countedJson.characters },
    qr: Buffer.from(qr).toString("base64"),
  }),
);
"""

TS_CONFIG = {
    "compilerOptions": {
        "target": "ES2022",
        "module": "NodeNext",
        "moduleResolution": "NodeNext",
        "lib": ["ES2022", "DOM"],
        "types": ["node"],
        "strict": True,
        "noUncheckedIndexedAccess": True,
        "skipLibCheck": False,
        "outDir": "dist",
    },
    "files": ["main.ts"],
}


def test_typescript_client_generated_from_the_document_calls_every_kind_of_operation(
    api: tuple[str, str], tmp_path: Path
) -> None:
    node = require_tool("node")
    if not (NODE_MODULES / "openapi-fetch").is_dir():
        pytest.skip("clients/node/node_modules has no openapi-fetch: run `make node`")
    base_url, key = api
    folder = tmp_path / "ts-client"
    folder.mkdir()
    (folder / "package.json").write_text('{"type": "module"}\n')
    (folder / "node_modules").symlink_to(NODE_MODULES)
    (folder / "tsconfig.json").write_text(json.dumps(TS_CONFIG))
    (folder / "main.ts").write_text(TS_CALLS)
    (folder / "photo.png").write_bytes(_png(40, 30))
    _run([node, str(GENERATORS / "openapi-typescript.mjs"), str(OPENAPI_PATH), "fileapi.ts"], folder)
    compiled = _run([node, str(NODE_MODULES / "typescript" / "bin" / "tsc"), "-p", "."], folder)
    assert compiled.strip() == "", compiled  # tsc --strict (the tsconfig's strict) clean
    answers = json.loads(_run([node, "dist/main.js", base_url, key, "photo.png"], folder))
    assert answers.pop("json") == {"words": EXPECTED["words"], "characters": EXPECTED["characters"]}
    qr = Image.open(io.BytesIO(base64.b64decode(answers.pop("qr"))))
    assert qr.format == "PNG"
    assert [code.text for code in zxingcpp.read_barcodes(qr)] == ["https://example.com"]
    assert answers == EXPECTED
