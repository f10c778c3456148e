from todotxt.export import FORMATS

HELP = "write the tasks as JSON or CSV"


def arguments(p):
    p.add_argument("--format", choices=sorted(FORMATS), default="json", help="json (the default) or csv")
    p.add_argument("--open", action="store_true", help="only the tasks not done")


def run(ctx, args):
    tasks = [t for t in ctx.todo.tasks if not (args.open and t.done)]
    ctx.out.write(FORMATS[args.format](tasks))
