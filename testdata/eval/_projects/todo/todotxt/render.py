"""Listing tasks on a terminal: the line number, the task, colors by
priority when the output is a terminal."""

import shutil

COLORS = {"A": "\033[1;31m", "B": "\033[33m", "C": "\033[32m"}
RESET = "\033[0m"


def line(task, width, color=False):
    """task as a listed line: its number right-aligned to width, the line
    as todo.txt writes it."""
    text = f"{task.number:>{width}} {task.format()}"
    if color and task.priority in COLORS and not task.done:
        return COLORS[task.priority] + text + RESET
    return text


def truncate(text, columns):
    """text cut to columns characters, with … when cut."""
    if columns <= 0 or len(text) <= columns:
        return text
    return text[: columns - 1] + "…"


def listing(tasks, color=False, columns=None):
    """The lines of a list of tasks, and a last line counting them."""
    if columns is None:
        columns = shutil.get_terminal_size((0, 0)).columns
    width = len(str(max((t.number for t in tasks), default=0)))
    out = [truncate(line(t, width, color), columns if not color else 0) for t in tasks]
    out.append(f"-- {len(tasks)} task{'s' if len(tasks) != 1 else ''}")
    return out
