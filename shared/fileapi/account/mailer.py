"""E-mail: Amazon SES (v2 API) in AWS, or .eml files in a local outbox folder."""

from __future__ import annotations

import time
import uuid
from abc import ABC, abstractmethod
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import Any

from fileapi.settings import Settings


def build_message(*, sender: str, to: str, subject: str, text: str) -> EmailMessage:
    """A plain-text message with Date and Message-ID headers."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = subject
    message["Date"] = formatdate(usegmt=True)
    message["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or "fileapi.local")
    message.set_content(text)
    return message


class Mailer(ABC):
    """Sends plain-text e-mail from the configured sender."""

    def __init__(self, sender: str) -> None:
        self.sender = sender

    def send(self, *, to: str, subject: str, text: str) -> None:
        """Send `text` to `to`."""
        self._deliver(build_message(sender=self.sender, to=to, subject=subject, text=text))

    @abstractmethod
    def _deliver(self, message: EmailMessage) -> None:
        """Hand the message to the transport."""


class OutboxMailer(Mailer):
    """Writes each message as an .eml file into `outbox_dir` (local use: open it in any mail client)."""

    def __init__(self, sender: str, outbox_dir: Path) -> None:
        super().__init__(sender)
        self.outbox_dir = outbox_dir

    def _deliver(self, message: EmailMessage) -> None:
        self.outbox_dir.mkdir(parents=True, exist_ok=True)
        name = f"{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}.eml"
        (self.outbox_dir / name).write_bytes(bytes(message))


class SesMailer(Mailer):
    """Sends through Amazon SES's v2 API (raw MIME), from a verified sender identity."""

    def __init__(self, sender: str, client: Any) -> None:
        super().__init__(sender)
        self.client = client

    def _deliver(self, message: EmailMessage) -> None:
        self.client.send_email(
            FromEmailAddress=self.sender,
            Destination={"ToAddresses": [str(message["To"])]},
            Content={"Raw": {"Data": bytes(message)}},
        )


def create_mailer(settings: Settings) -> Mailer:
    """The mailer the settings ask for: 'ses' (AWS) or 'outbox' (default, local)."""
    if settings.mailer == "ses":
        import botocore.session

        client = botocore.session.get_session().create_client("sesv2", region_name=settings.region)
        return SesMailer(settings.mail_from, client)
    if settings.mailer == "outbox":
        return OutboxMailer(settings.mail_from, settings.outbox_dir)
    raise ValueError(f"FILEAPI_MAILER must be 'ses' or 'outbox', not {settings.mailer!r}")
