"""The message for a name an endpoint does not take (a query parameter, a form or JSON field, a pipeline stage's
option): the known name it may mean (`qualty`: did you mean `quality`?), or those that are known.

Used by the one error mapping (fileapi.web.errors) and by the pipelines' own check of a stage's options; it imports
nothing of the project, so any layer may.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

# The longest name a message quotes whole (it is the client's text).
_MAX_SHOWN_CHARS = 40
# difflib's similarity (0-1) above which a known name is offered as the one meant: 0.6, its own default, takes
# `qualty` -> `quality` (0.92) and `colour` -> `color` (0.91) and leaves `foo` -> `format` (0.44) alone.
_CLOSE_NAME_RATIO = 0.6


def unknown_name(name: str, known: Sequence[str] | None, *, kind: str, protocol: Sequence[str] = ()) -> str:
    """The message for an unknown `kind` ("parameter", "field") `name`: the known name it may mean, or those that
    are known.

    :param known: the names the endpoint takes at that place (empty: it takes none; None: not told).
    :param protocol: names every endpoint takes (e.g. `upload`): offered as the one meant, not listed.
    """
    shown = _shown(name)
    if known is None:
        return f"unknown {kind} {shown}; leave it out"
    meant = closest_name(name, [*known, *protocol])
    if meant is not None:
        return f"unknown {kind} {shown}; did you mean {meant!r}?"
    if not known:
        return f"unknown {kind} {shown}: this endpoint takes no {kind}s; leave it out"
    return f"unknown {kind} {shown}; the {kind}s here are: {', '.join(known)}"


def closest_name(name: str, known: Sequence[str]) -> str | None:
    """The name of `known` that `name` most likely misspells: the same letters but for case, `_` and `-`
    (`user_password` -> `userPassword`), else the most similar by difflib's ratio over `_CLOSE_NAME_RATIO`."""
    folded = {_folded(candidate): candidate for candidate in known}
    if _folded(name) in folded:
        return folded[_folded(name)]
    close = difflib.get_close_matches(_folded(name), list(folded), n=1, cutoff=_CLOSE_NAME_RATIO)
    return folded[close[0]] if close else None


def _folded(name: str) -> str:
    return name.lower().replace("_", "").replace("-", "")


def _shown(name: str) -> str:
    """A name as a message quotes it: cut to _MAX_SHOWN_CHARS (it is the client's text)."""
    return repr(name if len(name) <= _MAX_SHOWN_CHARS else name[:_MAX_SHOWN_CHARS] + "...")
