"""The web layer: app factory, error mapping, metering dependency, docs and I/O helpers."""
