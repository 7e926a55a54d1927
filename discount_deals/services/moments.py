"""Moments and days as people give them (a discount's window, an expiry, a report's days), in UTC,
at the calendar's edges too: 9999-12-31 has no next day, and 0001-01-01T00:00+14:00 falls before
the year 1. Such values are refused (ValueError) or bounded, never an OverflowError."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

OUT_OF_RANGE = "That date is outside the calendar."
# After the last day there is: what "before the end of 9999-12-31" compares with.
END_OF_TIME = datetime.max.replace(tzinfo=UTC)


def utc_text(moment: datetime | None) -> str | None:
    """A moment as every answer and document writes it: ISO 8601 in UTC with a ``Z``, as
    pydantic writes the product's and the user's (``2026-11-28T09:14:00.123456Z``)."""
    return as_utc(moment).isoformat().replace("+00:00", "Z") if moment is not None else None


def as_utc(moment: datetime) -> datetime:
    """An aware UTC time; a time without a zone is taken as UTC. ValueError (:data:`OUT_OF_RANGE`)
    for one that UTC cannot write (its year would be 0 or 10000)."""
    try:
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    except OverflowError:
        raise ValueError(OUT_OF_RANGE) from None


def day_start(day: date) -> datetime:
    """The first moment of ``day`` in UTC."""
    return datetime.combine(day, time.min, tzinfo=UTC)


def after_day(day: date) -> datetime:
    """The first moment after ``day`` (UTC): the end of a range of days, not included."""
    return day_start(day + timedelta(days=1)) if day < date.max else END_OF_TIME
