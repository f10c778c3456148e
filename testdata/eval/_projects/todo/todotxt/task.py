"""One task: a line of todo.txt.

    x 2024-03-02 2024-03-01 (A) text @context +project key:value
    (A) 2024-03-01 text

A done task starts with "x", then its completion date and its creation
date; an open one starts with its priority, then its creation date."""

from dataclasses import dataclass, field

from todotxt import dates, tags
from todotxt.priority import split_priority


@dataclass
class Task:
    text: str
    priority: str = None
    done: bool = False
    completed: object = None  # datetime.date
    created: object = None  # datetime.date
    number: int = 0  # the line number in the file, from 1
    extra: dict = field(default_factory=dict)

    @property
    def contexts(self):
        return tags.contexts(self.text)

    @property
    def projects(self):
        return tags.projects(self.text)

    @property
    def keyvalues(self):
        return tags.keyvalues(self.text)

    @property
    def due(self):
        return dates.parse_date(self.keyvalues.get("due", ""))

    @property
    def threshold(self):
        return dates.parse_date(self.keyvalues.get("t", ""))

    def format(self):
        """The task as a line of todo.txt."""
        parts = []
        if self.done:
            parts.append("x")
            if self.completed:
                parts.append(dates.format_date(self.completed))
        elif self.priority:
            parts.append(f"({self.priority})")
        if self.created:
            parts.append(dates.format_date(self.created))
        parts.append(self.text)
        return " ".join(parts)


def parse_task(line, number=0):
    """The task written on line."""
    line = line.rstrip("\n")
    t = Task(text="", number=number)
    rest = line
    if rest.startswith("x "):
        t.done = True
        rest = rest[2:]
        first, _, after = rest.partition(" ")
        d = dates.parse_date(first)
        if d:
            t.completed, rest = d, after
    else:
        t.priority, rest = split_priority(rest)
    first, _, after = rest.partition(" ")
    d = dates.parse_date(first)
    if d:
        t.created, rest = d, after
    t.text = rest.strip()
    return t
