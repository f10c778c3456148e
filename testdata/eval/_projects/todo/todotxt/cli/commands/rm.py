HELP = "delete tasks"


def arguments(p):
    p.add_argument("numbers", nargs="+", type=int)


def run(ctx, args):
    for n in args.numbers:
        task = ctx.todo.get(n)
        ctx.todo.remove(n)
        ctx.say(f"{n} {task.format()}")
        ctx.say(f"TODO: {n} deleted.")
    ctx.todo.save()
