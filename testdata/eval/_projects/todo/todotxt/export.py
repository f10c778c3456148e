"""Tasks written out for other programs: JSON, one object a task, and CSV
with a header, as spreadsheets read it. Dates are YYYY-MM-DD or empty."""

import csv
import io
import json

from todotxt import dates

FIELDS = ["number", "done", "priority", "created", "completed", "due", "text", "contexts", "projects"]


def _date(d):
    return dates.format_date(d) if d else None


def record(task):
    """The task as a dict of FIELDS."""
    return {
        "number": task.number,
        "done": task.done,
        "priority": task.priority,
        "created": _date(task.created),
        "completed": _date(task.completed),
        "due": _date(task.due),
        "text": task.text,
        "contexts": task.contexts,
        "projects": task.projects,
    }


def to_json(tasks):
    return json.dumps([record(t) for t in tasks], indent=2, ensure_ascii=False) + "\n"


def to_csv(tasks):
    """CSV with a header row; contexts and projects are separated by spaces,
    done is "x" or empty."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(FIELDS)
    for t in tasks:
        r = record(t)
        r["done"] = "x" if t.done else ""
        r["contexts"] = " ".join(t.contexts)
        r["projects"] = " ".join(t.projects)
        w.writerow(["" if r[f] is None else r[f] for f in FIELDS])
    return buf.getvalue()


FORMATS = {"json": to_json, "csv": to_csv}
