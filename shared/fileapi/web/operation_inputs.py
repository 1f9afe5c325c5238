"""How many uploads a conversion takes as an operation (`?upload=`): one, or, for a route that joins files
(merge), the parameter repeated up to MAX_UPLOADS times. Read by the acceptance (fileapi.web.operations) and
the document (fileapi.web.routes); a module of its own so that declaring a route imports nothing more."""

from __future__ import annotations

# The query parameter that names an upload as a conversion's input: the protocol's own, taken by every endpoint.
UPLOAD_PARAMETER = "upload"
MAX_UPLOADS = 100  # per operation (a merge); the merged document's 5,000 pages bound it first in practice
MANY_INPUT_ROUTES = frozenset({"/v1/pdf/merge"})


def max_uploads(route: str) -> int:
    """How many uploads the conversion `route` takes as an operation: MAX_UPLOADS for one that joins several
    files, else one."""
    return MAX_UPLOADS if route in MANY_INPUT_ROUTES else 1
