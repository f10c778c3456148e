import datetime
import io
import os
import tempfile

from todotxt.cli.main import main

TODAY = datetime.date(2024, 3, 4)  # a Monday


def run_cli(content, *argv, today=TODAY):
    """Run the command line on a todo.txt holding content; returns (exit
    code, output, the file's text afterwards, the directory)."""
    d = tempfile.mkdtemp()
    path = os.path.join(d, "todo.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write(content)
    out = io.StringIO()
    env = {"TODO_CONFIG": os.path.join(d, "none.cfg")}
    code = main(["-f", path, *argv], env=env, out=out, today=today, err=out)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return code, out.getvalue(), text, d
