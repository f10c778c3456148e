"""Errors the package raises with a message meant for the user."""


class TodoError(Exception):
    """A problem the user can fix: bad input, a missing task."""


class NoSuchTask(TodoError):
    def __init__(self, number):
        super().__init__(f"no task {number}")
        self.number = number
