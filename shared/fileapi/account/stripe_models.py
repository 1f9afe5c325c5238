"""The fields of Stripe's webhook events that billing reads, as pydantic models, checked before any write.

Only what `fileapi.account.billing` reads is declared; every other field of Stripe's objects is ignored. A
delivery that does not fit (a missing or mistyped field, an e-mail address that is not one) is refused with
400 and nothing is written; Stripe shows the message in the endpoint's delivery log.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from fileapi.account.addresses import normalize_email
from fileapi.errors import InvalidInput

CHECKOUT_COMPLETED = "checkout.session.completed"
SUBSCRIPTION_UPDATED = "customer.subscription.updated"
SUBSCRIPTION_DELETED = "customer.subscription.deleted"
EmailAddress = Annotated[str, AfterValidator(normalize_email)]
StripeId = Annotated[str, Field(min_length=1, max_length=255, pattern=r"^[A-Za-z0-9_]+$")]
CustomerId = Annotated[str, Field(min_length=5, max_length=255, pattern=r"^cus_[A-Za-z0-9_]+$")]
# Stripe's subscription statuses (active and trialing are the live ones).
SubscriptionStatus = Literal[
    "incomplete", "incomplete_expired", "trialing", "active", "past_due", "canceled", "unpaid", "paused"
]


class StripeModel(BaseModel):
    """Stripe's objects carry many more fields: those not declared are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class CustomerDetails(StripeModel):
    email: EmailAddress | None = None


class CheckoutSession(StripeModel):
    """A completed Checkout Session: who paid (the customer), the address they typed, the plan sold."""

    customer: CustomerId
    customer_details: CustomerDetails | None = None
    customer_email: EmailAddress | None = None
    metadata: dict[str, str] = Field(default_factory=dict)

    @property
    def email(self) -> str | None:
        """The billing contact's address (customer_details.email, else customer_email)."""
        details = self.customer_details.email if self.customer_details else None
        return details or self.customer_email


class Price(StripeModel):
    lookup_key: str | None = None


class SubscriptionItem(StripeModel):
    price: Price | None = None


class SubscriptionItems(StripeModel):
    data: list[SubscriptionItem] = Field(default_factory=list)


class Subscription(StripeModel):
    """A subscription's customer, status and plan (metadata.plan, else its first price's lookup_key)."""

    customer: CustomerId
    status: SubscriptionStatus
    items: SubscriptionItems = Field(default_factory=SubscriptionItems)
    metadata: dict[str, str] = Field(default_factory=dict)

    @property
    def plan_names(self) -> list[str]:
        """The plan names the subscription states, most specific first."""
        names = [self.metadata["plan"]] if "plan" in self.metadata else []
        first = self.items.data[0].price if self.items.data else None
        if first is not None and first.lookup_key:
            names.append(first.lookup_key)
        return names


class EventData(StripeModel):
    object: dict[str, Any]


class Event(StripeModel):
    """An event envelope: its id (each is processed once), its type and its object."""

    id: StripeId
    type: str = Field(min_length=1, max_length=255)
    data: EventData


def parse_event(payload: dict[str, Any]) -> tuple[Event, CheckoutSession | Subscription | None]:
    """The event and, for the types billing handles, its object as a model (None for other types).

    :raises InvalidInput: a field billing reads is missing or malformed; the message names the field.
    """
    try:
        event = Event.model_validate(payload)
    except ValidationError as exc:
        raise InvalidInput(f"the event does not fit: {describe(exc)}") from None
    model: type[CheckoutSession | Subscription] | None = None
    if event.type == CHECKOUT_COMPLETED:
        model = CheckoutSession
    elif event.type in (SUBSCRIPTION_UPDATED, SUBSCRIPTION_DELETED):
        model = Subscription
    if model is None:
        return event, None
    try:
        return event, model.model_validate(event.data.object)
    except ValidationError as exc:
        raise InvalidInput(f"the event does not fit: {describe(exc, 'data.object')}") from None


def describe(error: ValidationError, prefix: str = "") -> str:
    """The first problem of a validation error: the field's path and what is wrong (never the value)."""
    first = error.errors(include_input=False, include_url=False)[0]
    path = ".".join([prefix, *(str(part) for part in first["loc"])] if prefix else [str(p) for p in first["loc"]])
    return f"{path or 'the event'}: {first['msg']}"
