"""Read the functions and their HTTP API routes from template.yaml (the deploy's single source)."""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

PROJECT_ROOT = Path(__file__).resolve().parents[3]
TEMPLATE_PATH = PROJECT_ROOT / "template.yaml"


@dataclass(frozen=True)
class FunctionSpec:
    """One AWS::Serverless::Function with HttpApi events."""

    logical_id: str
    code_dir: Path
    handler: str
    routes: tuple[tuple[str, str], ...]  # (METHOD, /path)

    @property
    def module_name(self) -> str:
        return f"fileapi_functions.{self.code_dir.name}.{self.handler.rpartition('.')[0]}"


class _CloudFormationLoader(yaml.SafeLoader):
    """SafeLoader that reads CloudFormation's short-form tags (!Ref, !Sub, ...) as plain values."""


def _any_tag(loader: yaml.SafeLoader, _suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    assert isinstance(node, yaml.MappingNode)
    return loader.construct_mapping(node)


_CloudFormationLoader.add_multi_constructor("!", _any_tag)


def load_template(template_path: Path = TEMPLATE_PATH) -> dict[str, Any]:
    """template.yaml as plain data (short-form tags read as their arguments)."""
    template: dict[str, Any] = yaml.load(template_path.read_text(encoding="utf-8"), Loader=_CloudFormationLoader)  # noqa: S506 (a SafeLoader)
    return template


def load_functions(template_path: Path = TEMPLATE_PATH) -> list[FunctionSpec]:
    """The template's functions that serve HTTP API routes, in template order."""
    template = load_template(template_path)
    specs: list[FunctionSpec] = []
    for logical_id, resource in template["Resources"].items():
        if resource.get("Type") != "AWS::Serverless::Function":
            continue
        properties = resource["Properties"]
        routes = tuple(
            (str(event["Properties"]["Method"]).upper(), str(event["Properties"]["Path"]))
            for event in properties.get("Events", {}).values()
            if event.get("Type") == "HttpApi"
        )
        if routes:
            specs.append(
                FunctionSpec(
                    logical_id=logical_id,
                    code_dir=(template_path.parent / properties["CodeUri"]).resolve(),
                    handler=properties["Handler"],
                    routes=routes,
                )
            )
    return specs


def load_function_module(spec: FunctionSpec) -> ModuleType:
    """Import the function's handler module from its CodeUri (once per process)."""
    if spec.module_name in sys.modules:
        return sys.modules[spec.module_name]
    path = spec.code_dir / f"{spec.handler.rpartition('.')[0]}.py"
    module_spec = importlib.util.spec_from_file_location(spec.module_name, path)
    if module_spec is None or module_spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[spec.module_name] = module
    module_spec.loader.exec_module(module)
    return module


@dataclass(frozen=True)
class CorsConfiguration:
    """The HttpApi's CorsConfiguration (what API Gateway answers preflights with and adds to responses)."""

    allow_origins: tuple[str, ...]
    allow_methods: tuple[str, ...]
    allow_headers: tuple[str, ...]
    expose_headers: tuple[str, ...]
    max_age_seconds: int | None


def load_cors(
    template_path: Path = TEMPLATE_PATH, *, allow_origins: tuple[str, ...] | None = None
) -> CorsConfiguration:
    """The CorsConfiguration of the template's AWS::Serverless::HttpApi.

    :param allow_origins: the origins to allow instead of the template's (the value a deploy gives the
        `CorsAllowedOrigins` parameter); None: what the template resolves to with its parameters' defaults.
    :raises ValueError: the template has no HttpApi with a CorsConfiguration.
    """
    template = load_template(template_path)
    for resource in template["Resources"].values():
        cors = resource.get("Properties", {}).get("CorsConfiguration")
        if resource.get("Type") == "AWS::Serverless::HttpApi" and cors:
            origins = allow_origins or _strings(template, cors.get("AllowOrigins", []))
            return CorsConfiguration(
                allow_origins=tuple(origins),
                allow_methods=tuple(_strings(template, cors.get("AllowMethods", []))),
                allow_headers=tuple(_strings(template, cors.get("AllowHeaders", []))),
                expose_headers=tuple(_strings(template, cors.get("ExposeHeaders", []))),
                max_age_seconds=int(cors["MaxAge"]) if "MaxAge" in cors else None,
            )
    raise ValueError(f"{template_path}: no AWS::Serverless::HttpApi with a CorsConfiguration")


def _strings(template: dict[str, Any], value: Any) -> list[str]:
    """A list property: a list, or a !Ref to a parameter (a CommaDelimitedList's default split at commas)."""
    if isinstance(value, list):
        return [str(item) for item in value]
    parameter = template.get("Parameters", {}).get(str(value))
    if parameter is None:
        raise ValueError(f"{value!r} is neither a list nor a template parameter")
    return [item.strip() for item in str(parameter.get("Default", "")).split(",") if item.strip()]
