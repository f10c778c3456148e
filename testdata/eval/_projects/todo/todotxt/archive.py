"""Moving done tasks out of todo.txt into done.txt."""

import os


def done_path(todo_path):
    """done.txt beside todo.txt."""
    return os.path.join(os.path.dirname(os.path.abspath(todo_path)), "done.txt")


def archive(todo, done_file=None):
    """Append the done tasks of todo (a loaded TodoFile) to done.txt and
    drop them from todo, renumbering the rest from 1 so the file has no
    gaps. Returns how many moved."""
    done_file = done_file or done_path(todo.path)
    done = [t for t in todo.tasks if t.done]
    if not done:
        return 0
    with open(done_file, "a", encoding="utf-8") as f:
        for t in done:
            f.write(t.format() + "\n")
    todo.tasks = [t for t in todo.tasks if not t.done]
    for i, t in enumerate(sorted(todo.tasks, key=lambda t: t.number), start=1):
        t.number = i
    todo.save()
    return len(done)
