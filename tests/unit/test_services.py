"""The process-wide service objects."""

from __future__ import annotations


def test_snapstart_reset_drops_the_service_objects() -> None:
    import fileapi.web.services as services

    services.set_meter(None)
    marker = object()
    services._keys = marker  # type: ignore[assignment]
    services.reset_after_restore()
    assert services._keys is None and services._meter is None
