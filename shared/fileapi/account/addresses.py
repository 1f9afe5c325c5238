"""E-mail addresses as accounts are indexed by: checked with `email_validator` (made for it), lower-cased."""

from __future__ import annotations

MAX_EMAIL_CHARS = 254  # RFC 5321's limit on a forward path, less the angle brackets


def normalize_email(address: str) -> str:
    """The address in the form accounts are indexed by: checked by `email_validator` (syntax only, no DNS),
    its domain in IDNA-normalized form, the whole lower-cased.

    :param address: at most 254 characters.
    :raises ValueError: not an e-mail address (the message says why, without repeating the address).
    """
    from email_validator import EmailNotValidError, validate_email  # on first use: not in the cold import

    if len(address) > MAX_EMAIL_CHARS:
        raise ValueError(f"an e-mail address has at most {MAX_EMAIL_CHARS} characters")
    try:
        checked = validate_email(address.strip(), check_deliverability=False)
    except EmailNotValidError as exc:
        raise ValueError(f"not an e-mail address: {exc}") from None
    return checked.normalized.lower()
