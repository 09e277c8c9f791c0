"""Windows of dates said in words ("last week", "este mes", "in the last 30 days"), resolved against the day the
reader is given: a window is [start, end) — on or after start, before end. Weeks run Monday to Sunday. Pure."""

from __future__ import annotations

import datetime as dt


def window(kind: tuple[str, int], today: dt.date) -> tuple[dt.date, dt.date]:
    unit, offset = kind
    if unit == "day":
        start = today + dt.timedelta(days=offset)
        return start, start + dt.timedelta(days=1)
    if unit == "days":  # the last N days, today included
        return today + dt.timedelta(days=offset + 1), today + dt.timedelta(days=1)
    if unit == "week":
        monday = today - dt.timedelta(days=today.weekday()) + dt.timedelta(weeks=offset)
        return monday, monday + dt.timedelta(days=7)
    if unit == "month":
        first = _month(today.year, today.month + offset)
        return first, _month(first.year, first.month + 1)
    if unit == "year":
        return dt.date(today.year + offset, 1, 1), dt.date(today.year + offset + 1, 1, 1)
    raise ValueError(f"unknown window unit {unit!r}")


def _month(year: int, month: int) -> dt.date:
    """The first day of a month counted from January of ``year`` (month 0 is the December before, 13 the next January)."""
    years, index = divmod(month - 1, 12)
    return dt.date(year + years, index + 1, 1)
