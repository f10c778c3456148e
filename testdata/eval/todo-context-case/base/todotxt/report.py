"""Counts of tasks by project and context."""

from collections import Counter
from dataclasses import dataclass


@dataclass
class Summary:
    open: int
    done: int
    overdue: int
    by_project: dict
    by_context: dict


def summarize(tasks, today):
    """How many tasks are open, done and overdue, and the open ones by
    project and context."""
    projects, contexts = Counter(), Counter()
    open_, done, overdue = 0, 0, 0
    for t in tasks:
        if t.done:
            done += 1
            continue
        open_ += 1
        if t.due and t.due < today:
            overdue += 1
        projects.update(t.projects)
        contexts.update(t.contexts)
    return Summary(open_, done, overdue, dict(projects), dict(contexts))
