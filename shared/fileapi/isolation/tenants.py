"""Whose conversions run now: the account a request or an operation works for, in a context variable, so that the
worker pool serves accounts in turns (fileapi.isolation.pool) and charges time held to the right one."""

from __future__ import annotations

from contextlib import AbstractContextManager
from contextvars import ContextVar, Token
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


def working_for(account_id: str) -> AbstractContextManager[Tenant]:
    """Within: conversions are `account_id`'s (they wait in its turn for a worker); gives its Tenant."""
    return _WorkingFor(Tenant(account_id))


class _WorkingFor(AbstractContextManager[Tenant]):
    """`working_for`'s block (a class: every metered request enters one, and a generator's context manager costs
    it a few microseconds more)."""

    def __init__(self, tenant: Tenant) -> None:
        self.tenant = tenant
        self.token: Token[Tenant | None] | None = None

    def __enter__(self) -> Tenant:
        self.token = _tenant.set(self.tenant)
        return self.tenant

    def __exit__(self, *_: object) -> None:
        assert self.token is not None
        _tenant.reset(self.token)


def current_tenant() -> Tenant | None:
    """The tenant conversions now work for (None: no one's in particular)."""
    return _tenant.get()
