"""Priorities: (A) is the highest, (Z) the lowest; a task may have none."""

import re

from todotxt.errors import TodoError

_PRIORITY = re.compile(r"^\(([A-Z])\) ")


def split_priority(line):
    """(priority or None, the rest of line)."""
    m = _PRIORITY.match(line)
    if not m:
        return None, line
    return m.group(1), line[m.end():]


def check_priority(p):
    """p upper-cased if it is a letter A-Z; TodoError otherwise."""
    if not isinstance(p, str) or len(p) != 1 or not p.isalpha() or not p.isascii():
        raise TodoError(f"not a priority: {p!r} (want a letter A-Z)")
    return p.upper()


def rank(p):
    """A sort key: A first, Z last, no priority after Z."""
    return ord(p) - ord("A") if p else 26


def raise_priority(p):
    """The next higher priority (B → A); A stays A, none becomes Z."""
    if p is None:
        return "Z"
    return chr(max(ord("A"), ord(p) - 1))


def lower_priority(p):
    """The next lower priority (A → B); Z loses its priority."""
    if p is None or p == "Z":
        return None
    return chr(ord(p) + 1)
