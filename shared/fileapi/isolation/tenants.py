"""Whose conversions run now: the account a request or an operation works for, in a context variable, so that the
worker pool serves accounts in turns (fileapi.isolation.pool) and charges time held to the right one."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass
class Tenant:
    """Whose conversions these are: the account (the pool's key), and the seconds its jobs held a worker before
    they were ended for time."""

    account_id: str
    overrun_seconds: float = 0.0

    def overran(self, seconds: float) -> None:
        self.overrun_seconds += seconds


_tenant: ContextVar[Tenant | None] = ContextVar("tenant", default=None)


@contextmanager
def working_for(account_id: str) -> Iterator[Tenant]:
    """Within: conversions are `account_id`'s (they wait in its turn for a worker); yields its Tenant."""
    tenant = Tenant(account_id)
    token = _tenant.set(tenant)
    try:
        yield tenant
    finally:
        _tenant.reset(token)


def current_tenant() -> Tenant | None:
    """The tenant conversions now work for (None: no one's in particular)."""
    return _tenant.get()
