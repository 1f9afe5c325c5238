"""The docs against their sources: docs/api.md names every path of the OpenAPI document and no other,
and the README stays a first page."""

from __future__ import annotations

import json
import re

from fileapi.local.template import PROJECT_ROOT
from fileapi.web.spec import OPENAPI_PATH

API_DOC = PROJECT_ROOT / "docs" / "api.md"


def test_api_doc_names_every_operation_of_the_document_and_no_other() -> None:
    spec = json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))
    documented = {f"{method.upper()} {path}" for path, item in spec["paths"].items() for method in item}
    named = set(re.findall(r"`((?:GET|POST|PUT|DELETE) /[\w/.{}-]*)(?:\?[^`]*)?`", API_DOC.read_text(encoding="utf-8")))
    assert documented - named == set(), "operations of /openapi.json that docs/api.md does not name"
    assert named - documented == set(), "operations docs/api.md names that /openapi.json does not have"


def test_readme_is_a_first_page() -> None:
    lines = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250
    for linked in re.findall(r"\]\((docs/[\w.-]+\.md)", "\n".join(lines)):
        assert (PROJECT_ROOT / linked).is_file(), linked


def test_api_doc_figures_are_the_code_s() -> None:
    from fileapi.metering.plans import CONTRACT_PLANS
    from fileapi.setting_variables import DEFAULT_DEADLINE_SECONDS, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_RESPONSE_BYTES

    text = API_DOC.read_text(encoding="utf-8")
    for plan in CONTRACT_PLANS.values():
        row = f"| {plan.name} | {plan.sustained_per_second:g} | {plan.burst} | {plan.quota_monthly:,} |"
        assert row in text, row
    for figure in (f"{DEFAULT_MAX_BODY_BYTES:,} bytes", f"{DEFAULT_MAX_RESPONSE_BYTES:,} bytes"):
        assert figure in text, figure
    assert f"within {DEFAULT_DEADLINE_SECONDS} s" in text


def test_api_doc_markdown_budget_is_the_code_s() -> None:
    from fileapi.convert import markdown_cost as cost

    text = " ".join(API_DOC.read_text(encoding="utf-8").split())
    figures = (
        f"need more than {cost.BUDGET_BYTES // 2**20} MiB (about {cost.BYTES_PER_CHARACTER} bytes per character, "
        f"{cost.BYTES_PER_LINE} per line, {cost.BYTES_PER_EMPHASIS_MARK} per `*` or `_`, {cost.BYTES_PER_CELL} per "
        "table cell)"
    )
    assert figures in text


def test_api_doc_split_limit_is_the_code_s() -> None:
    from fileapi.convert.pdf import MAX_SPLIT_PAGES

    assert f"ranges holding more than {MAX_SPLIT_PAGES:,} pages in all are 413" in API_DOC.read_text(encoding="utf-8")


def test_api_doc_diff_budgets_are_the_code_s() -> None:
    from fileapi.convert.textdiff import EXACT_MATCH_BUDGET, MATCH_WORK

    text = " ".join(API_DOC.read_text(encoding="utf-8").split())
    assert f"Up to {EXACT_MATCH_BUDGET:,} pairs of lines" in text
    assert f"while {MATCH_WORK:,} pairs of comparisons last" in text


def test_api_doc_svg_limits_are_the_code_s() -> None:
    from fileapi.convert.svg_images import MAX_INFLATED_BYTES
    from fileapi.convert.svg_rates import BUDGET_BYTES, BUDGET_SECONDS
    from fileapi.convert.svg_tree import MAX_ELEMENTS, MAX_NESTING, MAX_SELECTOR_TESTS

    text = " ".join(API_DOC.read_text(encoding="utf-8").split())
    for figure in (
        f"nesting deeper than {MAX_NESTING} levels",
        f"more than {MAX_ELEMENTS:,} elements",
        f"more than {MAX_SELECTOR_TESTS:,} selector tests",
        f"about {BUDGET_SECONDS:g} s of rendering work or {BUDGET_BYTES // 2**20} MiB of memory",
        f"inflate to at most {MAX_INFLATED_BYTES // 2**20} MB together",
    ):
        assert figure in text, figure
    spec = json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))
    route = " ".join(spec["paths"]["/v1/render/svg-to-png"]["post"]["description"].split())
    for figure in (
        f"deeper than {MAX_NESTING} levels",
        f"more than {MAX_ELEMENTS:,} elements",
        f"about {BUDGET_SECONDS:g} s of work or {BUDGET_BYTES // 2**20} MiB of memory",
    ):
        assert figure in route, figure
