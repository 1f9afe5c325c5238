"""The plans a process knows: the contract's from code, custom ones from the account store (cached)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from fileapi.metering.plans import CONTRACT_PLANS, Plan, UnknownPlan
from fileapi.metering.storage import AccountStore

CATALOG_TTL_SECONDS = 300


class PlanCatalog:
    """The plans a process knows: the contract's from code, custom ones from the store (cached).

    :param store: where custom plans live (None: the contract's only).
    :param ttl_seconds: how long a custom plan read from the store is used before it is read again.
    """

    def __init__(
        self,
        store: AccountStore | None = None,
        *,
        ttl_seconds: float = CATALOG_TTL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.ttl_seconds = ttl_seconds
        self.clock = clock
        self._cache: dict[str, tuple[float, Plan | None]] = {}
        self._lock = threading.Lock()

    def get(self, name: str) -> Plan:
        """The plan called `name`.

        :raises UnknownPlan: no such plan.
        """
        if name in CONTRACT_PLANS:
            return CONTRACT_PLANS[name]
        now = self.clock()
        with self._lock:
            cached = self._cache.get(name)
        if cached is None or now - cached[0] > self.ttl_seconds:
            plan = self.store.get_plan(name) if self.store is not None else None
            with self._lock:
                self._cache[name] = (now, plan)
        else:
            plan = cached[1]
        if plan is None:
            raise UnknownPlan(f"unknown plan {name!r}; plans are {', '.join(self.names())}")
        return plan

    def names(self) -> list[str]:
        """The contract's plans, then the custom ones in the store (by name)."""
        custom = [plan.name for plan in self.store.list_plans()] if self.store is not None else []
        return [*CONTRACT_PLANS, *sorted(name for name in custom if name not in CONTRACT_PLANS)]

    def create(self, plan: Plan) -> None:
        """Store a custom plan (or replace one); accounts on it take the new limits when they are next
        changed (`fileapi accounts set-plan`).

        :raises ValueError: the name is one of the contract's plans, or there is no store.
        """
        if plan.name in CONTRACT_PLANS:
            raise ValueError(f"{plan.name} is one of the contract's plans; give a custom plan another name")
        if self.store is None:
            raise ValueError("custom plans need a store")
        self.store.put_plan(plan)
        with self._lock:
            self._cache.pop(plan.name, None)
