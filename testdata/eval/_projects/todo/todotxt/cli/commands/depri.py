HELP = "take tasks' priorities away"


def arguments(p):
    p.add_argument("numbers", nargs="+", type=int)


def run(ctx, args):
    for n in args.numbers:
        task = ctx.todo.get(n)
        task.priority = None
        ctx.say(f"{n} {task.format()}")
        ctx.say(f"TODO: {n} deprioritized.")
    ctx.todo.save()
