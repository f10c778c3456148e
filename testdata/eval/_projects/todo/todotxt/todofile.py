"""A todo.txt file: its tasks, numbered by line, read and written whole."""

import os
import tempfile

from todotxt.errors import NoSuchTask
from todotxt.task import parse_task


class TodoFile:
    def __init__(self, path):
        self.path = path
        self.tasks = []

    def load(self):
        """Read the file (a missing file is an empty list). Blank lines keep
        their number but hold no task."""
        self.tasks = []
        if not os.path.exists(self.path):
            return self
        with open(self.path, encoding="utf-8") as f:
            for number, line in enumerate(f, start=1):
                if line.strip():
                    self.tasks.append(parse_task(line, number))
        return self

    def save(self):
        """Write the tasks back, each on its line number, atomically."""
        last = max((t.number for t in self.tasks), default=0)
        lines = [""] * last
        for t in self.tasks:
            lines[t.number - 1] = t.format()
        text = "".join(line + "\n" for line in lines)
        directory = os.path.dirname(os.path.abspath(self.path))
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".todo-")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, self.path)

    def get(self, number):
        for t in self.tasks:
            if t.number == number:
                return t
        raise NoSuchTask(number)

    def add(self, task):
        """Append task on the next line; returns its number."""
        task.number = max((t.number for t in self.tasks), default=0) + 1
        self.tasks.append(task)
        return task.number

    def remove(self, number):
        self.tasks.remove(self.get(number))
