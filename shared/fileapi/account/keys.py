"""Key rotation and recovery by e-mailed one-time code.

A recovery code is 8 ASCII digits from the OS CSPRNG, stored only as a SHA-256 (with the address), valid
for 10 minutes and used at most once (a conditional update: of two concurrent confirms exactly one wins).
A code recovers the account it was sent for (an address with accounts of several payment customers gets
one code per account). A new request never invalidates a code already sent: the owner's code stays valid
whatever anyone else asks for. Codes are compared in constant time (`hmac.compare_digest`).

Limits (token buckets in the same table) are per address *and* source, per source, and over all sources,
so that nobody can use up the owner's allowance from elsewhere: a flood from other sources leaves the
owner's (address, source) bucket full. The all-sources cap bounds the mail sent and the guesses tried
(at most `CONFIRM_ALL.burst` + `CONFIRM_ALL.per_hour` per hour over all addresses, each with a chance of
1 in 10^8 per code). Requests answer the same whether or not an account exists: the same store work is
done either way and the reply is padded to a fixed minimum time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from fileapi.account.addresses import normalize_email
from fileapi.account.mailer import Mailer
from fileapi.errors import InvalidInput, RateLimited, Unauthorized
from fileapi.metering.accounts import Account
from fileapi.metering.keys import generate_key, hash_key
from fileapi.metering.ratelimit import Bucket
from fileapi.metering.storage import AccountStore, BucketEmpty, CodeRejected, KeyChanged, RecoveryCode, guarded

CODE_TTL_SECONDS = 600
CODE_DIGITS = 8
RECOVERY_MESSAGE = "If an account exists for this address, a code has been sent to it. It is valid for 10 minutes."
WRONG_CODE = "the code is wrong, expired or already used"


@dataclass(frozen=True)
class AbuseLimit:
    """A token bucket of `burst` requests refilled at `per_hour`."""

    per_hour: float
    burst: int


# Recovery requests (each may send an e-mail) and confirmations (each is a guess at a code).
REQUEST_PER_ADDRESS_AND_SOURCE = AbuseLimit(per_hour=5, burst=5)
REQUEST_PER_SOURCE = AbuseLimit(per_hour=30, burst=20)
REQUEST_ALL = AbuseLimit(per_hour=3600, burst=600)
CONFIRM_PER_ADDRESS_AND_SOURCE = AbuseLimit(per_hour=10, burst=10)
CONFIRM_PER_SOURCE = AbuseLimit(per_hour=30, burst=20)
CONFIRM_ALL = AbuseLimit(per_hour=3600, burst=600)


def check_email(email: object) -> str:
    """The address as accounts are indexed by it. :raises InvalidInput: not an e-mail address."""
    if not isinstance(email, str):
        raise InvalidInput("email must be an e-mail address")
    try:
        return normalize_email(email)
    except ValueError as exc:
        raise InvalidInput(f"email must be an e-mail address ({exc})") from None


def check_code(code: object) -> str:
    """The code as typed. :raises InvalidInput: not 8 ASCII digits."""
    if not isinstance(code, str) or len(code) != CODE_DIGITS or not (code.isascii() and code.isdigit()):
        raise InvalidInput(f"code must be the {CODE_DIGITS} digits (0-9) from the e-mail")
    return code


def code_hash(email: str, code: str) -> str:
    return hashlib.sha256(f"{email.lower()}:{code}".encode()).hexdigest()


class KeyService:
    """Rotation and recovery over the metering store and a mailer.

    :param clock: epoch seconds (injected in tests).
    """

    def __init__(self, store: AccountStore, mailer: Mailer, *, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.mailer = mailer
        self.clock = clock

    def account(self, account_id: str) -> Account:
        """The account with this id (admitted just now, so it exists unless deleted meanwhile).

        :raises Unauthorized: the account is gone.
        """
        account = guarded(lambda: self.store.get_account(account_id))
        if account is None:
            raise Unauthorized("invalid API key")
        return account

    def rotate_account(self, account_id: str, key_hash: str) -> str:
        """Rotate the key that hashes to `key_hash` of the account with this id (see `rotate`).

        :raises Unauthorized: that key is no longer the account's (rotated by a concurrent request).
        """
        account = self.account(account_id)
        if account.key_hash != key_hash:
            raise Unauthorized("invalid API key")
        return self.rotate(account)

    def rotate(self, account: Account) -> str:
        """Replace the account's key; the old one is invalid at once; the new one is e-mailed and returned."""
        key = generate_key()
        try:
            guarded(lambda: self.store.replace_key(account, hash_key(key)))
        except KeyChanged:
            raise InvalidInput("the key was rotated by another request; use the newest key") from None
        self.mailer.send(
            to=account.email,
            subject="Your new API key",
            text=f"Your API key was rotated. The previous key no longer works.\n\nNew key: {key}\n",
        )
        return key

    def start_recovery(self, email: str, *, source: str) -> None:
        """Issue and e-mail a code for each account of the address; the same store work when it has none.

        :raises InvalidInput: not an e-mail address.
        :raises RateLimited: this source asked too often for this address or at all, or everyone did.
        """
        address = check_email(email)
        self._throttle(f"RECOVER-EMAIL#{address}#{source}", REQUEST_PER_ADDRESS_AND_SOURCE)
        self._throttle(f"RECOVER-SOURCE#{source}", REQUEST_PER_SOURCE)
        self._throttle("RECOVER-ALL", REQUEST_ALL)
        accounts = guarded(lambda: self.store.get_accounts_by_email(address))
        valid_until = int(self.clock()) + CODE_TTL_SECONDS
        recipients: list[Account | None] = [*accounts] or [None]
        for account in recipients:
            code = f"{secrets.randbelow(10**CODE_DIGITS):0{CODE_DIGITS}d}"
            stored = RecoveryCode(code_hash(address, code), account.account_id if account else None, valid_until)
            guarded(partial(self.store.add_recovery_code, address, stored, expires_at=valid_until + 86_400))
            if account is not None:
                which = f" for the account on the {account.plan} plan" if len(accounts) > 1 else ""
                self.mailer.send(
                    to=account.email,
                    subject="Your key recovery code",
                    text=f"Your one-time code{which} is {code}. It is valid for 10 minutes and works once.\n",
                )

    def confirm_recovery(self, email: str, code: object, *, source: str) -> str:
        """Exchange a valid code for a new key of the account it was sent for (the old key stops working).

        :raises InvalidInput: a code that is not 8 ASCII digits, or that is wrong, expired or used.
        :raises RateLimited: too many tries from this source for this address or at all, or from everyone.
        """
        address = check_email(email)
        typed = check_code(code)
        self._throttle(f"CONFIRM-EMAIL#{address}#{source}", CONFIRM_PER_ADDRESS_AND_SOURCE)
        self._throttle(f"CONFIRM-SOURCE#{source}", CONFIRM_PER_SOURCE)
        self._throttle("CONFIRM-ALL", CONFIRM_ALL)
        wanted = code_hash(address, typed)
        now = int(self.clock())
        match: RecoveryCode | None = None
        for stored in guarded(lambda: self.store.recovery_codes(address)):
            if hmac.compare_digest(stored.code_hash, wanted):
                match = stored
        if match is None or match.account_id is None or match.used or match.valid_until <= now:
            raise InvalidInput(WRONG_CODE)
        try:
            guarded(lambda: self.store.use_recovery_code(address, wanted, now=now))
        except CodeRejected:
            raise InvalidInput(WRONG_CODE) from None
        account_id = match.account_id
        account = guarded(lambda: self.store.get_account(account_id))
        if account is None:
            raise InvalidInput(WRONG_CODE)
        key = generate_key()
        try:
            guarded(lambda: self.store.replace_key(account, hash_key(key)))
        except KeyChanged:  # rotated meanwhile by its holder: the code still recovers the account
            current = self.account(account_id)
            guarded(lambda: self.store.replace_key(current, hash_key(key)))
        self.mailer.send(
            to=account.email,
            subject="Your new API key",
            text=f"Your key was recovered. The previous key no longer works.\n\nNew key: {key}\n",
        )
        return key

    def _throttle(self, subject: str, limit: AbuseLimit) -> None:
        now = self.clock()
        bucket = Bucket.at_rate(int(now * 1_000_000), per_second=limit.per_hour / 3600, burst=limit.burst)
        try:
            guarded(lambda: self.store.throttle(subject, bucket, expires_at=int(now) + 2 * 86_400))
        except BucketEmpty as exc:
            raise RateLimited(
                "too many recovery requests; try again later",
                retry_after_seconds=bucket.retry_after_seconds(exc.tat_us),
            ) from None
