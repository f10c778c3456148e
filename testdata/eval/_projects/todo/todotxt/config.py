"""Settings: ~/.todo.cfg (or TODO_CONFIG), lines of key = value:

    file = ~/notes/todo.txt
    sort = priority due
    color = auto

A value may be quoted ("~/My Notes/todo.txt"), the quotes not part of it.
"""

import os

from todotxt.errors import TodoError

DEFAULTS = {"file": "todo.txt", "sort": "priority due created number", "color": "auto"}


def config_path(env):
    return env.get("TODO_CONFIG") or os.path.expanduser("~/.todo.cfg")


def parse(text, name="config"):
    out = {}
    for n, raw in enumerate(text.splitlines(), start=1):
        s = raw.split("#", 1)[0].strip()
        if not s:
            continue
        key, sep, value = s.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key:
            raise TodoError(f"{name}:{n}: want key = value")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        if key not in DEFAULTS:
            raise TodoError(f"{name}:{n}: unknown setting {key!r}")
        out[key] = value
    return out


def load(env=None):
    """The settings: the defaults, the file's, then TODO_FILE."""
    env = os.environ if env is None else env
    settings = dict(DEFAULTS)
    path = config_path(env)
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            settings.update(parse(f.read(), path))
    if env.get("TODO_FILE"):
        settings["file"] = env["TODO_FILE"]
    settings["file"] = os.path.expanduser(settings["file"])
    return settings
