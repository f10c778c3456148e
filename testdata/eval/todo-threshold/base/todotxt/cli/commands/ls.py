from todotxt import filters, render
from todotxt.sorting import sort_tasks

HELP = "list tasks"


def arguments(p):
    p.add_argument("query", nargs="*", help="@context +project pri:A due:<today word -word …")
    p.add_argument("-a", "--all", action="store_true", help="done tasks too")
    p.add_argument("-s", "--sort", help="sort keys, e.g. 'due priority' (default: the setting)")


def run(ctx, args):
    match = filters.compile_query(args.query, ctx.today)
    tasks = [t for t in ctx.todo.tasks if filters.visible(t, ctx.today, args.all) and match(t)]
    keys = (args.sort or ctx.settings["sort"]).split()
    color = ctx.settings.get("color") == "always"
    for line in render.listing(sort_tasks(tasks, keys), color=color, columns=0):
        ctx.say(line)
