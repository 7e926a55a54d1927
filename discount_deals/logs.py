"""Logging for the app's own messages (Reflex and the server configure their own)."""

import logging
import sys

from .settings import get_settings


def configure_logging() -> None:
    logger = logging.getLogger("discount_deals")
    if logger.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(get_settings().log_level.upper())
    logger.propagate = False
