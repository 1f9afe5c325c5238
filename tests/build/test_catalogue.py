"""The catalogue of hostile inputs (tests/bombs.py) is well formed: every entry has a unique name, a
reason, a route of the API and an answer the API gives; tests/api/test_bombs.py sends them all."""

from __future__ import annotations

import json

from fileapi.web.spec import OPENAPI_PATH
from tests.bombs import BOMBS


def test_every_entry_names_a_route_and_says_why() -> None:
    paths = set(json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))["paths"])
    assert len({bomb.name for bomb in BOMBS}) == len(BOMBS)
    for bomb in BOMBS:
        assert bomb.why and bomb.path in paths, bomb.name
        assert bomb.expected in ((200, None), (400, "invalid_input"), (413, "too_large")), bomb.name


def test_every_class_of_the_issue_has_entries_on_both_sides_of_its_limit() -> None:
    refused = {bomb.path for bomb in BOMBS if bomb.expected[0] == 413}
    answered = {bomb.path for bomb in BOMBS if bomb.expected[0] == 200}
    for path in ("/v1/render/svg-to-png", "/v1/text/markdown-to-html", "/v1/data/csv-to-json", "/v1/text/diff"):
        assert path in refused and path in answered, path
