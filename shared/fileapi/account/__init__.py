"""Account services: e-mail delivery (and, with the account endpoints, keys and billing)."""
