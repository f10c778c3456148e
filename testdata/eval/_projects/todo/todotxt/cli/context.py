"""What every command gets: the settings, the todo file, today, output."""

import datetime
import sys
from dataclasses import dataclass, field

from todotxt.todofile import TodoFile


@dataclass
class Context:
    settings: dict
    today: datetime.date = field(default_factory=datetime.date.today)
    out: object = sys.stdout
    _todo: TodoFile = None

    @property
    def todo(self):
        if self._todo is None:
            self._todo = TodoFile(self.settings["file"]).load()
        return self._todo

    def say(self, text):
        print(text, file=self.out)
