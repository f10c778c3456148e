"""The order tasks are listed in."""

from todotxt.errors import TodoError
from todotxt.priority import rank

# Keys a list may sort by, in the order of the default sort.
KEYS = ("priority", "due", "created", "number")

_FAR = (9999, 12, 31)


def _due_key(task):
    d = task.due
    return (d.year, d.month, d.day) if d else _FAR


def _created_key(task):
    d = task.created
    return (d.year, d.month, d.day) if d else _FAR


def sort_key(keys):
    """A key function sorting by keys (see KEYS); a leading "-" reverses
    one."""
    parts = []
    for k in keys:
        desc = k.startswith("-")
        name = k.lstrip("-")
        if name not in KEYS:
            raise TodoError(f"cannot sort by {name!r}: want one of {', '.join(KEYS)}")
        parts.append((name, desc))

    def key(task):
        out = []
        for name, desc in parts:
            if name == "priority":
                v = (rank(task.priority),)
            elif name == "due":
                v = _due_key(task)
            elif name == "created":
                v = _created_key(task)
            else:
                v = (task.number,)
            out.append(tuple(-x for x in v) if desc else v)
        return tuple(out)

    return key


def sort_tasks(tasks, keys=KEYS):
    return sorted(tasks, key=sort_key(keys))
