from todotxt.recurrence import next_occurrence

HELP = "mark tasks done"


def arguments(p):
    p.add_argument("numbers", nargs="+", type=int, help="the tasks' line numbers")


def run(ctx, args):
    todo = ctx.todo
    for n in args.numbers:
        task = todo.get(n)
        if task.done:
            ctx.say(f"TODO: {n} is already done.")
            continue
        task.done, task.completed = True, ctx.today
        ctx.say(f"{n} {task.format()}")
        ctx.say(f"TODO: {n} marked as done.")
        follow = next_occurrence(task, ctx.today)
        if follow is not None:
            m = todo.add(follow)
            ctx.say(f"{m} {follow.format()}")
            ctx.say(f"TODO: {m} added (recurring).")
    todo.save()
