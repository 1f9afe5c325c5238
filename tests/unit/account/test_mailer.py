from __future__ import annotations

import email
import email.policy
from dataclasses import replace
from email.message import EmailMessage
from pathlib import Path

import pytest
from moto import mock_aws

from fileapi.account.mailer import OutboxMailer, SesMailer, create_mailer
from fileapi.settings import load_settings


def test_outbox_writes_a_parseable_eml(tmp_path: Path) -> None:
    mailer = OutboxMailer("no-reply@example.com", tmp_path / "outbox")
    mailer.send(to="user@example.com", subject="Your key", text="Hello ✓")
    (path,) = (tmp_path / "outbox").glob("*.eml")
    message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    assert (message["From"], message["To"], message["Subject"]) == (
        "no-reply@example.com",
        "user@example.com",
        "Your key",
    )
    assert message["Message-ID"] and message["Date"]
    assert isinstance(message, EmailMessage)
    assert message.get_content().strip() == "Hello ✓"


def test_ses_mailer_sends_raw_mime_through_sesv2() -> None:
    with mock_aws():
        import boto3

        ses = boto3.client("sesv2", region_name="us-east-1")
        ses.create_email_identity(EmailIdentity="no-reply@example.com")
        SesMailer("no-reply@example.com", ses).send(to="user@example.com", subject="Hi", text="Body")
        from moto.backends import get_backend

        sent = get_backend("ses")["123456789012"]["us-east-1"].sent_messages
        assert len(sent) == 1
        assert "user@example.com" in str(sent[0].destinations)


def test_create_mailer_by_setting(tmp_path: Path) -> None:
    settings = replace(load_settings(), outbox_dir=tmp_path)
    assert isinstance(create_mailer(settings), OutboxMailer)
    with pytest.raises(ValueError, match="FILEAPI_MAILER"):
        create_mailer(replace(settings, mailer="pigeon"))
