"""Self-service: usage, keys and recovery, in the contract's own snake_case names."""

from __future__ import annotations

from pydantic import Field

from fileapi.account.keys import RECOVERY_MESSAGE
from fileapi.metering.plans import CONTRACT_PLANS
from fileapi.models import ContractModel, ContractRequest, example, examples

ROTATED = "Your key was rotated; the previous key no longer works."
RECOVERED = "Your key was recovered; the previous key no longer works."


class DailyUsage(ContractModel):
    """Successful requests counted on one UTC day."""

    model_config = example({"date": "2026-11-03", "requests": 30})

    date: str = Field(description="The UTC day, YYYY-MM-DD.", json_schema_extra={"format": "date"})
    requests: int = Field(description="Successful requests counted that day.")


class UsageResult(ContractModel):
    """Usage of the key's account this UTC month."""

    model_config = example(
        {
            "plan": "pro",
            "quota_monthly": 10000,
            "used_this_month": 42,
            "remaining": 9958,
            "resets_at": "2026-12-01T00:00:00.000Z",
            "status": "active",
            "daily": [
                {"date": "2026-11-01", "requests": 12},
                {"date": "2026-11-02", "requests": 0},
                {"date": "2026-11-03", "requests": 30},
            ],
        }
    )

    plan: str = Field(description="The account's plan.", json_schema_extra={"enum": list(CONTRACT_PLANS)})
    quota_monthly: int = Field(description="Monthly cap in force (plan or account override).")
    used_this_month: int = Field(description="Successful requests counted this UTC month.")
    remaining: int = Field(description="quota_monthly minus used_this_month.")
    resets_at: str = Field(description="1st of next month, 00:00:00.000Z.", json_schema_extra={"format": "date-time"})
    status: str = Field(description="Subscription status: 'active' for a live subscription.")
    daily: list[DailyUsage] = Field(
        description="Every day of this UTC month from the 1st to today (0 where none); the requests add up to "
        "used_this_month."
    )


class NewKey(ContractModel):
    """A new key; the previous one no longer works."""

    message: str = Field(description="What happened, in words.")
    api_key: str = Field(description="The new key: sk_live_ and 49 letters and digits.")


class KeysRotateResult(NewKey):
    """The rotated key."""

    model_config = example({"message": ROTATED, "api_key": examples.API_KEY})


class KeysRecoverConfirmResult(NewKey):
    """The recovered key."""

    model_config = example({"message": RECOVERED, "api_key": examples.API_KEY})


class KeysRecoverResult(ContractModel):
    """Always the same message, whether or not an account has the address."""

    model_config = example({"message": RECOVERY_MESSAGE})

    message: str = Field(description="What happens next.")


class RecoverRequest(ContractRequest):
    """The address to send a recovery code to."""

    model_config = example({"email": "you@example.com"})

    email: str = Field(max_length=254, description="The account's e-mail address.")


class ConfirmRequest(ContractRequest):
    """The address and the code from the e-mail."""

    model_config = example({"email": "you@example.com", "code": "12345678"})

    email: str = Field(max_length=254, description="The account's e-mail address.")
    code: str = Field(max_length=32, description="The 8 digits from the e-mail.")
