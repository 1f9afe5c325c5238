"""Conversion workers: untrusted native work runs in processes of its own (pool), one job at a time each."""
