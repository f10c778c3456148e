"""Dates as todo.txt writes them (YYYY-MM-DD), and the relative words the
command line accepts: today, tomorrow, yesterday, monday…sunday (the next
one after today), +3d, +2w, +1m, +1y."""

import datetime
import re

from todotxt.errors import TodoError

WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

_RELATIVE = re.compile(r"^\+?(\d+)([dwmy])$")


def parse_date(text):
    """The date written YYYY-MM-DD, or None when text is not one."""
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        return None


def format_date(d):
    return d.isoformat()


def add_months(d, months):
    """d moved by months, on the same day of the month, or the month's last
    day when it is shorter (Jan 31 + 1 month = Feb 28 or 29)."""
    index = d.year * 12 + d.month - 1 + months
    year, month = divmod(index, 12)
    month += 1
    day = min(d.day, days_in_month(year, month))
    return datetime.date(year, month, day)


def days_in_month(year, month):
    if month == 12:
        nxt = datetime.date(year + 1, 1, 1)
    else:
        nxt = datetime.date(year, month + 1, 1)
    return (nxt - datetime.date(year, month, 1)).days


def shift(d, amount, unit):
    """d moved by amount units: d(ays), w(eeks), m(onths) or y(ears)."""
    if unit == "d":
        return d + datetime.timedelta(days=amount)
    if unit == "w":
        return d + datetime.timedelta(weeks=amount)
    if unit == "m":
        return add_months(d, amount)
    if unit == "y":
        return add_months(d, 12 * amount)
    raise TodoError(f"unknown unit {unit!r}: want d, w, m or y")


def resolve(text, today):
    """The date text means, relative to today; TodoError when none."""
    word = text.strip().lower()
    d = parse_date(word)
    if d is not None:
        return d
    if word == "today":
        return today
    if word == "tomorrow":
        return today + datetime.timedelta(days=1)
    if word == "yesterday":
        return today - datetime.timedelta(days=1)
    if word in WEEKDAYS:
        ahead = (WEEKDAYS.index(word) - today.weekday()) % 7
        return today + datetime.timedelta(days=ahead or 7)
    m = _RELATIVE.match(word)
    if m:
        return shift(today, int(m.group(1)), m.group(2))
    raise TodoError(f"not a date: {text!r} (want YYYY-MM-DD, today, tomorrow, a weekday or +3d)")
