"""Placeholder until this wire format is written."""

ROUTES = []
