"""The payment provider's webhook: its acknowledgement."""

from __future__ import annotations

from pydantic import Field

from fileapi.models import ContractModel, example


class WebhookAck(ContractModel):
    """The event was received."""

    model_config = example({"received": True})

    received: bool = Field(description="Always true.")
