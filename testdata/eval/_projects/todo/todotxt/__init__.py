"""A todo.txt task manager: parse, filter, sort, complete and archive tasks."""

from todotxt.task import Task, parse_task
from todotxt.todofile import TodoFile

__all__ = ["Task", "parse_task", "TodoFile"]
__version__ = "0.4.0"
