"""Standard Webhooks signatures (https://www.standardwebhooks.com): what `standardwebhooks.Webhook.verify` checks.

The signed content is `{webhook-id}.{webhook-timestamp}.{body}`; the signature is `v1,` and the Base64 of
its HMAC-SHA256 under the secret's bytes (the Base64 text after `whsec_`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

SECRET_PREFIX = "whsec_"  # noqa: S105 (a prefix, not a secret)
SECRET_BYTES = 32  # Standard Webhooks asks for 24 to 64


def new_secret() -> str:
    """A new signing secret: whsec_ and the Base64 of 32 random bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode("ascii")


def signature(secret: str, *, message_id: str, timestamp: int, body: bytes) -> str:
    """The `webhook-signature` value of `body` sent as `message_id` at `timestamp` (epoch seconds).

    :raises ValueError: `secret` is not whsec_ and Base64.
    """
    key = base64.b64decode(secret.removeprefix(SECRET_PREFIX), validate=True)
    signed = f"{message_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode("ascii")


def signed_headers(secret: str, *, message_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """The three Standard Webhooks headers of a delivery."""
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signature(secret, message_id=message_id, timestamp=timestamp, body=body),
    }
