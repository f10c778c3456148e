"""Tasks read from CSV another program wrote (a spreadsheet, or this
program's export). Columns go by the header's names: text is required;
priority, created, due, done and completed are optional; number, contexts
and projects (which the text already holds) are ignored. A bad row is an
error naming its line, and nothing is imported."""

import csv
import io

from todotxt import dates, tags
from todotxt.errors import TodoError
from todotxt.priority import check_priority
from todotxt.task import Task

KNOWN = {"text", "priority", "created", "due", "done", "completed"}
IGNORED = {"number", "contexts", "projects"}
_YES = {"x", "yes", "true", "1", "done"}
_NO = {"", "no", "false", "0"}


def _date(value, line, column):
    if not value:
        return None
    d = dates.parse_date(value)
    if d is None:
        raise TodoError(f"line {line}: {column} {value!r} is not a date (YYYY-MM-DD)")
    return d


def from_csv(text):
    """The tasks of the CSV text, in its order (not yet numbered)."""
    rows = csv.reader(io.StringIO(text))
    header = next(rows, None)
    if not header:
        raise TodoError("empty CSV: want a header row naming the columns")
    header = [h.strip().lower() for h in header]
    unknown = [h for h in header if h not in KNOWN | IGNORED]
    if unknown:
        raise TodoError(f"unknown column {unknown[0]!r} (known: {', '.join(sorted(KNOWN))})")
    if "text" not in header:
        raise TodoError("no text column")
    tasks = []
    for line, row in enumerate(rows, start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(header):
            raise TodoError(f"line {line}: {len(row)} cells, the header has {len(header)}")
        cells = dict(zip(header, (c.strip() for c in row)))
        body = cells.get("text", "")
        if not body or "\n" in body:
            raise TodoError(f"line {line}: a task needs a text on one line")
        t = Task(text=body)
        if cells.get("priority"):
            t.priority = check_priority(cells["priority"])
        t.created = _date(cells.get("created", ""), line, "created")
        due = _date(cells.get("due", ""), line, "due")
        if due:
            t.text = tags.set_keyvalue(t.text, "due", dates.format_date(due))
        done = cells.get("done", "").lower()
        if done not in _YES | _NO:
            raise TodoError(f"line {line}: done {cells['done']!r} is not yes or no")
        if done in _YES:
            t.done, t.priority = True, None
            t.completed = _date(cells.get("completed", ""), line, "completed")
        tasks.append(t)
    return tasks
