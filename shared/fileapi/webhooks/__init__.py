"""Webhooks: endpoints an account registers, and signed deliveries of its operations' ends (Standard Webhooks)."""
