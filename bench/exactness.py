"""Benchmarks of issue 18's figures: exact JSON format/minify against jq, the time to a predicted 413,
and the GFM spec measured for the Markdown renderer candidates."""

from __future__ import annotations

import io
import json
import random
import time
from pathlib import Path
from typing import Any

from bench.scoreboard import Goal, record
from bench.timing import command_seconds, median_seconds, row
from fileapi.convert.json_text import format_json, minify_json


def json_document() -> bytes:
    """The 3.4 MB bench document: 1,200 nested objects and arrays of floats, integers, text, literals."""
    rng = random.Random(7)

    def item(depth: int = 0) -> Any:
        if depth > 2:
            return rng.choice([rng.random() * 1000, "text ✓ " * rng.randint(1, 4), True, None, rng.randint(0, 10**9)])
        return {f"key{i}": item(depth + 1) for i in range(5)} if depth % 2 == 0 else [item(depth + 1) for _ in range(5)]

    return json.dumps([item() for _ in range(1200)], ensure_ascii=False).encode()


def bench_json(tmp: Path) -> None:
    """json-format and json-minify (every token kept as written) against jq on the same file."""
    document = json_document()
    doc = tmp / "doc.json"
    doc.write_bytes(document)
    print(f"  JSON document: {len(document) / 1e6:.1f} MB")
    jq = command_seconds(["jq", "."], stdin_path=str(doc), repeat=7)
    jq_compact = command_seconds(["jq", "-c", "."], stdin_path=str(doc), repeat=7)
    formatted = median_seconds(lambda: format_json(document), repeat=7)
    minified = median_seconds(lambda: minify_json(document), repeat=7)
    print(row("json-format", formatted, jq, "jq ."))
    print(row("json-minify", minified, jq_compact, "jq -c ."))
    record(
        "Data",
        "json-format, 3.4 MB, tokens kept",
        formatted * 1000,
        "ms",
        Goal(max_ratio=1.0),
        anchor=jq and jq * 1000,
        anchor_name="jq .",
    )
    record(
        "Data",
        "json-minify, 3.4 MB, tokens kept",
        minified * 1000,
        "ms",
        Goal(max_ratio=0.5),
        anchor=jq_compact * 1000 if jq_compact else None,
        anchor_name="jq -c .",
    )
    # Escapes and numbers orjson would write otherwise, and a duplicate key: the re-spacing path.
    rewritten = document.replace(b"true", b"1.50", 50).replace(b"\xe2\x9c\x93", b"\\u2713", 50)
    rewritten = rewritten.replace(b'{"key0"', b'{"key0": 0, "key0"', 1)
    slow = median_seconds(lambda: format_json(rewritten), repeat=5)
    print(row("json-format, escapes, 1.50 and a duplicate key", slow, jq, "jq ."))
    record(
        "Data",
        "json-format, escapes and duplicates",
        slow * 1000,
        "ms",
        Goal(),
        anchor=jq and jq * 1000,
        anchor_name="jq .",
    )
    if jq is None:
        print("  (jq is not installed: `apt-get install jq` for the jq ratios)")


def grainy_photo(width: int = 4000, height: int = 3000) -> bytes:
    """A 12 MP JPEG of a gradient with film-grain noise (2.5 MB; as PNG it is about 26 MB)."""
    from PIL import Image

    base = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    noise = Image.frombytes("RGB", (width, height), random.Random(12).randbytes(width * height * 3))
    out = io.BytesIO()
    Image.blend(base, noise, 0.25).save(out, "JPEG", quality=70)
    return out.getvalue()


def bench_too_large() -> None:
    """Time to the 413 for results that cannot fit the response, through the local app."""
    from fastapi.testclient import TestClient

    from fileapi.convert.image_io import ImageFormat, encode, open_image
    from fileapi.local.server import create_local_app
    from tests.helpers import auth, in_memory_metering

    photo = grainy_photo()
    print(f"\nResults over the response limit (grainy 12 MP JPEG, {len(photo) / 1e6:.1f} MB)")
    with in_memory_metering("bench-413@example.com") as key, TestClient(create_local_app()) as api:
        for name, path, params in (
            ("convert to PNG", "/v1/image/convert", {"to": "png"}),
            ("resize to 3000 px, PNG", "/v1/image/resize", {"width": "3000", "format": "png"}),
        ):

            def ask(path: str = path, params: dict[str, str] = params) -> None:
                response = api.post(path, params=params, content=photo, headers=auth(key))
                assert response.status_code == 413, response.text

            seconds = median_seconds(ask, repeat=5)
            image = open_image(photo)

            def encode_whole(image: Any = image) -> None:
                encode(image, ImageFormat.PNG)

            full = median_seconds(encode_whole, repeat=3)
            print(row(f"413 for {name}", seconds, full, "encoding the whole PNG"))
            record(
                "Image",
                f"time to 413, 12 MP grainy JPEG, {name}",
                seconds * 1000,
                "ms",
                Goal(max_value=1000),
                anchor=full * 1000,
                anchor_name="encoding the PNG",
            )


def bench_gfm() -> None:
    """The GFM spec's 671 examples, each with the spec runner's extension, for each candidate renderer."""
    from tests.gfm_spec import SPEC, examples

    if not SPEC.is_file():
        print("\n(the GFM spec is absent: `apt-get install cmark-gfm` ships it)")
        return
    import cmarkgfm
    import comrak
    from cmarkgfm.cmark import Options
    from markdown_it import MarkdownIt
    from mdit_py_plugins.tasklists import tasklists_plugin

    cases = examples()

    def with_comrak(markdown: str, extension: str) -> str:
        options = comrak.ExtensionOptions()
        if extension:
            setattr(options, extension, True)
        render = comrak.RenderOptions()
        render.unsafe_ = True
        return str(comrak.render_markdown(markdown, extension_options=options, render_options=render))

    def with_cmark_gfm(markdown: str, extension: str) -> str:
        return str(
            cmarkgfm.markdown_to_html_with_extensions(
                markdown, options=Options.CMARK_OPT_UNSAFE, extensions=[extension] if extension else []
            )
        )

    plain = MarkdownIt("commonmark", {"html": True})
    gfm = MarkdownIt("gfm-like", {"html": True}).use(tasklists_plugin)

    def with_markdown_it(markdown: str, extension: str) -> str:
        return str((gfm if extension else plain).render(markdown))

    print(f"\nGFM spec: examples rendered exactly as the spec says ({len(cases)}, each with its own extension)")
    for name, render in (
        ("comrak", with_comrak),
        ("cmark-gfm 0.29.0.gfm.13", with_cmark_gfm),
        ("markdown-it-py", with_markdown_it),
    ):
        passed = sum(render(case.markdown, case.extension) == case.html for case in cases)
        started = time.perf_counter()
        for case in cases:
            render(case.markdown, case.extension)
        print(f"  {name:<28} {passed}/{len(cases)}   all examples in {1000 * (time.perf_counter() - started):.0f} ms")
