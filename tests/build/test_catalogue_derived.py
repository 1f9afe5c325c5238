"""Every conversion of the catalogue has everything that derives from it, and nothing else declares one: its
route in its family's app and in template.yaml, its OpenAPI operation (and so the SDKs' function), its MCP tool,
its sample event, its row in docs/api.md, and its requests in the corpus fuzz tool (tools/fuzz_files.py).
`make openapi` regenerates what is derived (fileapi catalogue --write, fileapi openapi --write)."""

from __future__ import annotations

import json

import pytest

from fileapi.catalogue.declaration import Reads
from fileapi.catalogue.registry import FAMILIES, every, family
from fileapi.local.catalogue_files import API_DOC, event_path, function_name, stale
from fileapi.local.template import load_function_module, load_functions
from fileapi.web.docs import operation_id
from fileapi.web.metering import MeteredRoute
from fileapi.web.spec import OPENAPI_PATH
from tools.fuzz_files import KINDS, calls_for

CONVERSIONS = every()
SPECS = {spec.logical_id: spec for spec in load_functions()}


def test_no_derived_file_is_stale() -> None:
    assert stale() == [], "run `make openapi` (fileapi catalogue --write)"


@pytest.mark.parametrize("name", FAMILIES)
def test_a_family_app_serves_its_conversions_and_no_other_metered_post(name: str) -> None:
    spec = SPECS[function_name(name)]
    app = load_function_module(spec).app
    metered = [route for route in app.routes if isinstance(route, MeteredRoute) and route.counted]
    assert [route.path for route in metered] == [conversion.path for conversion in family(name)]
    assert all(route.conversion is not None for route in metered)
    assert {path for method, path in spec.routes if method == "POST"} == {c.path for c in family(name)}


def test_no_other_function_serves_a_counted_route_but_pipelines() -> None:
    families = {function_name(name) for name in FAMILIES}
    counted = []
    for logical_id, spec in SPECS.items():
        if logical_id in families:
            continue
        app = getattr(load_function_module(spec), "app", None)
        counted += [r.path for r in getattr(app, "routes", []) if isinstance(r, MeteredRoute) and r.counted]
    assert counted == ["/v1/pipelines"]  # it runs the catalogue's conversions, a unit per stage


@pytest.mark.parametrize("conversion", CONVERSIONS, ids=[c.name for c in CONVERSIONS])
def test_every_conversion_has_its_operation_event_docs_row_and_fuzz_entry(conversion: object) -> None:
    from fileapi.catalogue.declaration import Conversion

    assert isinstance(conversion, Conversion)
    document = json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))
    operation = document["paths"][conversion.path]["post"]
    assert operation["operationId"] == operation_id(conversion.path)
    assert operation["summary"] == conversion.summary
    event = json.loads(event_path(conversion).read_text(encoding="utf-8"))
    assert event["routeKey"] == f"POST {conversion.path}"
    assert f"| `POST {conversion.path}` |" in API_DOC.read_text(encoding="utf-8")
    if conversion.takes.takes_file and conversion.takes.reads is not Reads.JSON:
        fuzzed = {call.path for kind in KINDS for call in calls_for(kind, 0)}
        assert conversion.path in fuzzed


def test_every_conversion_is_an_mcp_tool() -> None:
    from fileapi_mcp.tools import build_tools

    tools = build_tools(json.loads(OPENAPI_PATH.read_text(encoding="utf-8")))
    assert {operation_id(c.path) for c in CONVERSIONS} <= set(tools)


def test_declarations_are_well_formed() -> None:
    paths = [c.path for c in CONVERSIONS]
    assert len(paths) == len(set(paths))
    for conversion in CONVERSIONS:
        assert conversion.path == f"/v1/{conversion.name}"
        assert conversion.summary and conversion.description, conversion.path
        assert conversion.family in FAMILIES
        assert (conversion.takes.reads is Reads.JSON) == (conversion.most_inputs == 0)
        if conversion.options is not None:
            aliases = {info.alias or name for name, info in conversion.options.model_fields.items()}
            assert set(conversion.example) <= aliases, conversion.path
