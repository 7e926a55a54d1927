"""Logging: one line per record (requests, the app's messages, Reflex's warnings), with a timestamp.

Log collectors (journald, docker) split on newlines, so a record never spans lines: newlines in
a message or a traceback are written as `` ⏎ ``.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from ..config.settings import get_settings

LINE_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# Granian's access log: one line per request with its status and duration.
ACCESS_FORMAT = '%(addr)s "%(method)s %(path)s %(protocol)s" %(status)d %(dt_ms).1fms'


class OneLineFormatter(logging.Formatter):
    """A formatter whose output never contains a newline."""

    def __init__(self, fmt: str | None = LINE_FORMAT, datefmt: str | None = None, style: Any = "%") -> None:
        super().__init__(fmt, datefmt, style)

    def format(self, record: logging.LogRecord) -> str:
        return super().format(record).replace("\r", "").replace("\n", " ⏎ ")


def configure_logging() -> None:
    logger = logging.getLogger("discount_deals")
    if logger.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLineFormatter())
    logger.addHandler(handler)
    logger.setLevel(get_settings().log_level.upper())
    logger.propagate = False


def server_logging_config(level: str = "INFO") -> dict:
    """``logging.config`` for the production server (Granian's own loggers, Reflex's via the root)."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "generic": {"()": "discount_deals.server.logs.OneLineFormatter", "fmt": LINE_FORMAT},
            "access": {"()": "discount_deals.server.logs.OneLineFormatter", "fmt": "%(asctime)s ACCESS %(message)s"},
        },
        "handlers": {
            "console": {"formatter": "generic", "class": "logging.StreamHandler", "stream": "ext://sys.stderr"},
            "access": {"formatter": "access", "class": "logging.StreamHandler", "stream": "ext://sys.stderr"},
        },
        "loggers": {
            "_granian": {"handlers": ["console"], "level": level, "propagate": False},
            "granian.access": {"handlers": ["access"], "level": "INFO", "propagate": False},
        },
        # Reflex logs through the standard library and, outside its own CLI, attaches no handler.
        "root": {"handlers": ["console"], "level": "WARNING"},
    }
