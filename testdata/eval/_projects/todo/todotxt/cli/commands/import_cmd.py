from todotxt.errors import TodoError
from todotxt.importer import from_csv

HELP = "add the tasks of a CSV file"


def arguments(p):
    p.add_argument("csv", help="the CSV file; its header names the columns (text, priority, due, …)")
    p.add_argument("--no-date", action="store_true", help="do not record today as the creation date")


def run(ctx, args):
    try:
        with open(args.csv, encoding="utf-8-sig", newline="") as f:
            text = f.read()
    except OSError as e:
        raise TodoError(f"cannot read {args.csv}: {e.strerror}") from None
    tasks = from_csv(text)
    for t in tasks:
        if t.created is None and not args.no_date:
            t.created = ctx.today
        ctx.todo.add(t)
    ctx.todo.save()
    ctx.say(f"TODO: {len(tasks)} imported.")
