"""The converters' libraries write no log records: theirs quote the input. pypdf, for one, warns "Text string
'...' contains characters not supported by font encoding" with a form field's value, and with no handler of
its own such a record reaches standard error (logging's last resort, or the handler the Lambda runtime puts on
the root logger): CloudWatch. The service's own records (fileapi.telemetry) never hold content.
"""

from __future__ import annotations

import logging

# The libraries a conversion calls that log through `logging` (each is the parent of its modules' loggers).
LIBRARIES = ("pypdf", "pikepdf", "pypdfium2", "PIL", "pyvips", "markdown_it")


def silence() -> None:
    """Their records go nowhere: no handler of theirs writes, none is passed up to the root logger's."""
    for name in LIBRARIES:
        library = logging.getLogger(name)
        library.propagate = False
        library.handlers[:] = [logging.NullHandler()]
