"""Key rotation and recovery over the DynamoDB store (moto in-process), with an injected clock."""

from __future__ import annotations

import email
import email.policy
import re
from pathlib import Path

import pytest

from fileapi.account.keys import CONFIRM_PER_ADDRESS_AND_SOURCE, REQUEST_PER_ADDRESS_AND_SOURCE, KeyService, check_email
from fileapi.account.mailer import OutboxMailer
from fileapi.errors import InvalidInput, RateLimited, Unauthorized
from fileapi.metering.accounts import Account
from fileapi.metering.admin import create_key, issue_key
from fileapi.metering.meter import Meter
from fileapi.metering.storage import AccountStore, RecoveryCode, Stores

T0 = 1_795_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


@pytest.fixture()
def clock() -> Clock:
    return Clock()


@pytest.fixture()
def outbox(tmp_path: Path) -> Path:
    return tmp_path / "outbox"


@pytest.fixture()
def service(store: AccountStore, clock: Clock, outbox: Path) -> KeyService:
    return KeyService(store, OutboxMailer("no-reply@example.com", outbox), clock=clock)


@pytest.fixture()
def meter(stores: Stores) -> Meter:
    return Meter(stores.admission)


def authenticate(meter: Meter, store: AccountStore, key: str) -> Account:
    """The account the key admits to (raises what admission raises)."""
    admission = meter.admit(f"Bearer {key}", counted=False, request_id=key[-12:])
    account = store.get_account(admission.account_id)
    assert account is not None
    return account


def mails(outbox: Path) -> list[str]:
    return [
        email.message_from_bytes(path.read_bytes(), policy=email.policy.default).get_body().get_content()  # type: ignore[union-attr]
        for path in sorted(outbox.glob("*.eml"), key=lambda p: p.stat().st_mtime_ns)
    ]


def code_in(text: str) -> str:
    match = re.search(r"\b(\d{8})\b", text)
    assert match
    return match.group(1)


def last_code(outbox: Path) -> str:
    return code_in(mails(outbox)[-1])


def test_rotate_invalidates_the_old_key_and_mails_the_new(
    service: KeyService, store: AccountStore, outbox: Path, meter: Meter
) -> None:
    old = create_key(store, email="r@example.com", plan="pro")
    account = authenticate(meter, store, old)
    new = service.rotate(account)
    with pytest.raises(Unauthorized):
        authenticate(meter, store, old)
    assert authenticate(meter, store, new).account_id == account.account_id
    assert new in mails(outbox)[-1] and old not in mails(outbox)[-1]


def test_rotating_with_a_stale_account_view_is_refused(service: KeyService, store: AccountStore, meter: Meter) -> None:
    account = authenticate(meter, store, create_key(store, email="s@example.com", plan="pro"))
    service.rotate(account)
    with pytest.raises(InvalidInput, match="rotated by another request"):
        service.rotate(account)


def test_recovery_flow(service: KeyService, store: AccountStore, outbox: Path, meter: Meter) -> None:
    old = create_key(store, email="Who@Example.com", plan="growth")
    service.start_recovery("who@example.com ", source="1.2.3.4")
    code = last_code(outbox)
    new = service.confirm_recovery("WHO@example.com", code, source="1.2.3.4")
    with pytest.raises(Unauthorized):
        authenticate(meter, store, old)
    assert authenticate(meter, store, new).plan == "growth"
    with pytest.raises(InvalidInput, match="wrong, expired or already used"):
        service.confirm_recovery("who@example.com", code, source="1.2.3.4")  # works once


def test_unknown_address_gets_no_mail_but_the_same_store_work(
    service: KeyService, store: AccountStore, outbox: Path
) -> None:
    stored: list[str] = []
    put = store.add_recovery_code

    def recording_put(email: str, code: RecoveryCode, *, expires_at: int) -> None:
        stored.append(email)
        put(email, code, expires_at=expires_at)

    store.add_recovery_code = recording_put  # type: ignore[method-assign]
    service.start_recovery("nobody@example.com", source="1.2.3.4")
    assert not outbox.exists() or mails(outbox) == []
    assert stored == ["nobody@example.com"]


def test_expired_code_fails(service: KeyService, store: AccountStore, clock: Clock, outbox: Path) -> None:
    create_key(store, email="e@example.com", plan="pro")
    service.start_recovery("e@example.com", source="s")
    code = last_code(outbox)
    clock.now += 601
    with pytest.raises(InvalidInput, match="expired"):
        service.confirm_recovery("e@example.com", code, source="s")


def test_wrong_tries_are_limited_per_address_and_source(service: KeyService, store: AccountStore, outbox: Path) -> None:
    create_key(store, email="b@example.com", plan="pro")
    service.start_recovery("b@example.com", source="owner")
    code = last_code(outbox)
    wrong = f"{(int(code) + 1) % 10**8:08d}"
    for _ in range(CONFIRM_PER_ADDRESS_AND_SOURCE.burst):
        with pytest.raises(InvalidInput, match="wrong, expired or already used"):
            service.confirm_recovery("b@example.com", wrong, source="guesser")
    with pytest.raises(RateLimited):
        service.confirm_recovery("b@example.com", code, source="guesser")
    # the guesses neither burnt the code nor used up its owner's tries
    assert service.confirm_recovery("b@example.com", code, source="owner").startswith("sk_live_")


def test_a_new_request_leaves_the_code_already_sent_valid(
    service: KeyService, store: AccountStore, outbox: Path, clock: Clock
) -> None:
    create_key(store, email="n@example.com", plan="pro")
    service.start_recovery("n@example.com", source="owner")
    first = last_code(outbox)
    clock.now += 1
    service.start_recovery("n@example.com", source="someone-else")
    second = last_code(outbox)
    assert service.confirm_recovery("n@example.com", first, source="owner").startswith("sk_live_")
    if second != first:
        assert service.confirm_recovery("n@example.com", second, source="owner").startswith("sk_live_")


def test_each_account_of_an_address_gets_its_own_code(
    service: KeyService, store: AccountStore, outbox: Path, meter: Meter
) -> None:
    first = create_key(store, email="two@example.com", plan="pro", customer_id="cus_first")
    issue_key(store, email="two@example.com", plan="starter", customer_id="cus_second", shared_email=True)
    service.start_recovery("two@example.com", source="s")
    (starter_mail,) = [text for text in mails(outbox)[-2:] if "the starter plan" in text]
    recovered = service.confirm_recovery("two@example.com", code_in(starter_mail), source="s")
    assert authenticate(meter, store, recovered).plan == "starter"
    assert authenticate(meter, store, first).plan == "pro"  # the other account's key still works


@pytest.mark.parametrize(
    "code", ["1234567", "123456789", "abcdefgh", 12345678, "١٢٣٤٥٦٧٨", "１２３４５６７８", "1234567\n", " 1234567"]
)
def test_code_must_be_eight_ascii_digits(service: KeyService, code: object) -> None:
    with pytest.raises(InvalidInput, match="8 digits"):
        service.confirm_recovery("x@example.com", code, source="s")


@pytest.mark.parametrize("address", ["", "no-at-sign", "a@b", "a b@example.com", "x" * 250 + "@example.com", 5])
def test_malformed_addresses_are_rejected(address: object) -> None:
    with pytest.raises(InvalidInput, match="e-mail address"):
        check_email(address)


def test_a_flood_from_other_sources_leaves_the_owner_allowance(service: KeyService, clock: Clock) -> None:
    for source in range(10):
        for _ in range(REQUEST_PER_ADDRESS_AND_SOURCE.burst):
            service.start_recovery("flood@example.com", source=f"ip-{source}")
        with pytest.raises(RateLimited) as caught:
            service.start_recovery("flood@example.com", source=f"ip-{source}")
        assert int(caught.value.headers["Retry-After"]) >= 1
    service.start_recovery("flood@example.com", source="owner")  # not refused
    clock.now += 3600
    service.start_recovery("flood@example.com", source="ip-9")


def test_recovery_requests_are_limited_per_source(service: KeyService) -> None:
    for n in range(20):
        service.start_recovery(f"user{n}@example.com", source="9.9.9.9")
    with pytest.raises(RateLimited):
        service.start_recovery("user99@example.com", source="9.9.9.9")
