"""Recurring tasks: rec:3d, rec:2w, rec:1m, rec:1y come back that long after
the day they were done; with a "+" (rec:+1w) that long after their due
date, so a weekly bill stays on its weekday however late it was paid."""

import re
from dataclasses import replace

from todotxt import dates, tags
from todotxt.errors import TodoError

_REC = re.compile(r"^(\+?)(\d+)([dwmy])$")


def parse_rec(value):
    """(strict, amount, unit) of a rec: value."""
    m = _REC.match(value)
    if not m:
        raise TodoError(f"rec:{value}: want a number and d, w, m or y, e.g. rec:1w or rec:+1m")
    return m.group(1) == "+", int(m.group(2)), m.group(3)


def next_occurrence(task, done_on):
    """The task that follows task, done on done_on, or None when task
    does not recur: a new open task, created done_on, its due date (and
    threshold date) moved on."""
    rec = task.keyvalues.get("rec")
    if not rec:
        return None
    strict, amount, unit = parse_rec(rec)
    base = done_on
    text = task.text
    priority = task.priority
    if task.keyvalues.get("pri"):
        # A done task keeps its priority as pri:X; the next one gets it back.
        priority = task.keyvalues["pri"]
        text = tags.set_keyvalue(text, "pri", None)
    if task.due:
        new_due = dates.shift(base, amount, unit)
        text = tags.set_keyvalue(text, "due", dates.format_date(new_due))
        if task.threshold:
            lead = task.due - task.threshold
            text = tags.set_keyvalue(text, "t", dates.format_date(new_due - lead))
    return replace(task, text=text, priority=priority, done=False, completed=None, created=done_on, number=0)
