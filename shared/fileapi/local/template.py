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
