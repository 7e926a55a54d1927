"""Reflex State classes. Each inherits rx.State directly and calls services, never the HTTP API."""
