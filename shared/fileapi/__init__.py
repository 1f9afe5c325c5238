"""fileapi: the shared code layer of the File and Data Utility API."""

__version__ = "0.1.0"
