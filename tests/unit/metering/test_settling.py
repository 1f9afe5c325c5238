"""Settling a reserved unit: refunds, lost replies and forgiveness, each fault counted and reported."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from fileapi.errors import ServiceUnavailable
from fileapi.metering.admin import create_key
from fileapi.metering.meter import Admission, Meter
from fileapi.metering.months import MICROS
from fileapi.metering.ratelimit import Bucket
from fileapi.metering.settling import SETTLE_ATTEMPTS, Fault, Settler
from fileapi.metering.state import MeterState
from fileapi.metering.storage import Ambiguous, Attempt, BucketCase, Stores, StoreUnavailable
from tests.metering_doubles import FaultyStore

NOW_US = int(datetime(2026, 11, 10, 12, tzinfo=UTC).timestamp()) * MICROS
PERIOD = "2026-11"


@pytest.fixture()
def admitted(stores: Stores) -> Admission:
    """One counted request admitted on a fresh pro key: its unit reserved (used 1)."""
    key = create_key(stores.accounts, email="settle@example.com", plan="pro")
    return Meter(stores.admission, clock=lambda: NOW_US).admit(f"Bearer {key}", counted=True, request_id="r1")


def settler(stores: Stores, *script: str) -> tuple[Settler, list[Fault]]:
    """A Settler over a store that fails as `script` says (then works), and the faults it reports."""
    reported: list[Fault] = []
    return Settler(FaultyStore(stores.admission, script=list(script)), on_fault=reported.append), reported


def counts(stores: Stores, admission: Admission) -> tuple[int, int]:
    state = stores.admission.read(admission.account_id)
    assert state is not None
    return state.used, state.forgiven


def test_a_refund_gives_the_unit_back(stores: Stores, admitted: Admission) -> None:
    settle, reported = settler(stores)
    after = settle.refund(admitted.account_id, PERIOD, "r1", 0, day=admitted.day)
    assert after is not None and after.used == 0
    assert reported == [] and settle.faults == {}


def test_a_refund_whose_reply_was_lost_is_read_back_and_not_repeated(stores: Stores, admitted: Admission) -> None:
    settle, reported = settler(stores, "lost")
    after = settle.refund(admitted.account_id, PERIOD, "r1", 0, day=admitted.day)
    assert after is not None and after.refunded("r1")
    assert counts(stores, admitted) == (0, 0)
    assert reported == []


def test_a_refund_of_unknown_outcome_is_forgiven_instead(stores: Stores, admitted: Admission) -> None:
    settle, reported = settler(stores, "unsent")
    after = settle.refund(admitted.account_id, PERIOD, "r1", 0, day=admitted.day)
    assert after is not None
    assert counts(stores, admitted) == (1, 1)  # taken, not charged, not given back
    assert reported == [Fault.REFUND_OUTCOME_UNKNOWN]


def test_a_refund_that_cannot_be_written_leaves_the_unit_charged(stores: Stores, admitted: Admission) -> None:
    settle, reported = settler(stores, *["unavailable"] * SETTLE_ATTEMPTS)
    assert settle.refund(admitted.account_id, PERIOD, "r1", 0, day=admitted.day) is None
    assert counts(stores, admitted) == (1, 0)
    assert reported == [Fault.SETTLE_FAILED]
    assert settle.faults == {Fault.SETTLE_FAILED: 1}


def test_a_forgiveness_whose_reply_was_lost_is_retried_and_counted(stores: Stores, admitted: Admission) -> None:
    settle, reported = settler(stores, "unsent")
    after = settle.forgive(admitted.account_id, PERIOD, "r1", 0, day=admitted.day)
    assert after is not None
    assert counts(stores, admitted) == (1, 1)
    assert reported == [Fault.FORGIVE_REPLY_LOST]


def attempt_on(state: MeterState, *, reserve: bool, request_id: str) -> Attempt:
    """The admission write of `request_id` on `state`, a busy bucket of its limits at NOW_US."""
    return Attempt(
        account_id=state.account_id,
        key_hash=state.key_hash,
        interval_us=state.interval_us,
        burst=state.burst,
        period=PERIOD,
        bucket=Bucket.of(NOW_US, interval_us=state.interval_us, burst=state.burst),
        case=BucketCase.BUSY,
        reserve=reserve,
        new_month=False,
        request_id=request_id,
    )


def test_a_lost_admission_reply_that_applied_lets_the_request_go_on(stores: Stores, admitted: Admission) -> None:
    settle, reported = settler(stores, "lost")
    attempt = attempt_on(admitted.state, reserve=True, request_id="r2")
    with pytest.raises(Ambiguous):  # the write applies, and its reply is lost
        settle.store.admit(attempt)
    current = settle.lost_admission(attempt, started=0.0)
    assert current.used == 2 and current.admitted("r2")
    assert reported == [Fault.ADMISSION_REPLY_LOST_APPLIED]


def test_a_lost_admission_reply_never_proven_is_503_and_forgiven(stores: Stores, admitted: Admission) -> None:
    settle, reported = settler(stores)
    attempt = attempt_on(admitted.state, reserve=True, request_id="r2")  # never written
    with pytest.raises(ServiceUnavailable, match="nothing was charged"):
        settle.lost_admission(attempt, started=0.0)
    assert counts(stores, admitted) == (1, 1)
    assert reported == [Fault.ADMISSION_OUTCOME_UNKNOWN]


def test_a_lost_reply_of_a_self_service_admission_is_503_and_forgives_nothing(
    stores: Stores, admitted: Admission
) -> None:
    settle, reported = settler(stores)
    with pytest.raises(ServiceUnavailable):
        settle.lost_admission(attempt_on(admitted.state, reserve=False, request_id="r2"), started=0.0)
    assert counts(stores, admitted) == (1, 0)
    assert reported == [Fault.TOKEN_OUTCOME_UNKNOWN]


class Unreadable(FaultyStore):
    """A FaultyStore whose reads do not answer (a store too slow for the read timeout)."""

    def read(self, account_id: str, *, shard: int = 0) -> MeterState | None:
        raise StoreUnavailable("injected: the read timed out")


def lost_admission_not_read_back(stores: Stores, admitted: Admission, *forgive_script: str) -> list[Fault]:
    """An admission that applied and lost its reply, whose read-back does not answer, settled long after its
    start (past SETTLE_SECONDS); its forgiveness's writes fail as `forgive_script` says. The faults reported."""
    reported: list[Fault] = []
    settle = Settler(Unreadable(stores.admission, script=["lost", *forgive_script]), on_fault=reported.append)
    attempt = attempt_on(admitted.state, reserve=True, request_id="r2")
    with pytest.raises(Ambiguous):
        settle.store.admit(attempt)
    with pytest.raises(ServiceUnavailable, match="nothing was charged"):
        settle.lost_admission(attempt, started=0.0)
    return reported


def test_a_forgiveness_that_reached_the_store_is_retried_past_its_time(stores: Stores, admitted: Admission) -> None:
    # GIVEN a forgiveness whose first write applied and lost its reply, after the time the 503 should come by
    reported = lost_admission_not_read_back(stores, admitted, "lost")
    # THEN the retry finds its tag: the 503 is not charged, and no settle failure is reported
    assert counts(stores, admitted) == (2, 1)
    assert reported == [Fault.ADMISSION_OUTCOME_UNKNOWN, Fault.FORGIVE_REPLY_LOST]


def test_a_forgiveness_that_cannot_reach_the_store_stops_at_its_time(stores: Stores, admitted: Admission) -> None:
    # GIVEN a forgiveness whose write was throttled, after the time the 503 should come by
    reported = lost_admission_not_read_back(stores, admitted, "unavailable")
    # THEN the 503 comes without another try: the unit stays charged, and that is reported
    assert counts(stores, admitted) == (2, 0)
    assert reported == [Fault.ADMISSION_OUTCOME_UNKNOWN, Fault.SETTLE_FAILED]
