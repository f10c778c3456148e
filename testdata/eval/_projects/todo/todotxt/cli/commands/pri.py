from todotxt.priority import check_priority

HELP = "give a task a priority"


def arguments(p):
    p.add_argument("number", type=int)
    p.add_argument("priority")


def run(ctx, args):
    task = ctx.todo.get(args.number)
    task.priority = check_priority(args.priority)
    ctx.todo.save()
    ctx.say(f"{task.number} {task.format()}")
    ctx.say(f"TODO: {task.number} prioritized ({task.priority}).")
