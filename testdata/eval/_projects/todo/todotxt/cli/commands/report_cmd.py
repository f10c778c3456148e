from todotxt.report import summarize

HELP = "count tasks by project and context"


def arguments(p):
    pass


def run(ctx, args):
    s = summarize(ctx.todo.tasks, ctx.today)
    ctx.say(f"open {s.open}, done {s.done}, overdue {s.overdue}")
    for name, n in sorted(s.by_project.items()):
        ctx.say(f"  +{name}: {n}")
    for name, n in sorted(s.by_context.items()):
        ctx.say(f"  @{name}: {n}")
