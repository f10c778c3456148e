"""Which tasks a list shows. Each word of a query is a condition; a task
must meet them all:

    @home  +garden     has the context / project
    -@home -+garden    has not
    pri:A  pri:A-C     has that priority, or one in the range
    due:<today  due:2024-03-05  due:>=+3d
                       its due date compares so (tasks without one fail)
    word               the text holds it (any case)
    -word              the text does not hold it
"""

import operator
import re

from todotxt import dates
from todotxt.errors import TodoError

_COMPARE = re.compile(r"^(<=|>=|<|>|=)?(.+)$")
_OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "=": operator.eq}


def compile_query(words, today):
    """A predicate on tasks for the query words."""
    preds = [_condition(w, today) for w in words]
    return lambda task: all(p(task) for p in preds)


def _condition(word, today):
    negate = word.startswith("-") and len(word) > 1
    if negate:
        word = word[1:]
    pred = _positive(word, today)
    if negate:
        return lambda task: not pred(task)
    return pred


def _positive(word, today):
    if word.startswith("@") and len(word) > 1:
        name = word[1:].casefold()
        return lambda task: name in (c.casefold() for c in task.contexts)
    if word.startswith("+") and len(word) > 1:
        name = word[1:].casefold()
        return lambda task: name in (p.casefold() for p in task.projects)
    if word.startswith("pri:"):
        return _priority(word[4:])
    if word.startswith("due:"):
        return _due(word[4:], today)
    needle = word.lower()
    return lambda task: needle in task.text.lower()


def _priority(spec):
    lo, _, hi = spec.upper().partition("-")
    hi = hi or lo
    if not (len(lo) == 1 and len(hi) == 1 and lo.isalpha() and hi.isalpha()):
        raise TodoError(f"pri:{spec}: want a letter or a range like A-C")
    return lambda task: task.priority is not None and lo <= task.priority <= hi


def _due(spec, today):
    m = _COMPARE.match(spec)
    op = _OPS[m.group(1) or "="]
    when = dates.resolve(m.group(2), today)
    return lambda task: task.due is not None and op(task.due, when)


def visible(task, today, show_done=False):
    """Whether list shows task at all: open tasks, and done ones on
    request."""
    return show_done or not task.done
