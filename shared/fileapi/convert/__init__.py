"""Converters: pure functions over bytes and typed options.

No HTTP, no AWS, no I/O, no environment: they raise `fileapi.errors` and return
bytes or frozen dataclasses. Heavy third-party libraries are imported inside the
module of the family that needs them, never here.
"""
