from todotxt.task import parse_task

HELP = "add a task"


def arguments(p):
    p.add_argument("text", nargs="+", help="the task, as todo.txt writes it")
    p.add_argument("--no-date", action="store_true", help="do not record today as the creation date")


def run(ctx, args):
    text = " ".join(args.text).strip()
    task = parse_task(text)
    if task.done:
        task.done, task.completed = False, None
    if task.created is None and not args.no_date:
        task.created = ctx.today
    n = ctx.todo.add(task)
    ctx.todo.save()
    ctx.say(f"{n} {task.format()}")
    ctx.say(f"TODO: {n} added.")
