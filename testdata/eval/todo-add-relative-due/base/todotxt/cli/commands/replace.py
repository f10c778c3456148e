from todotxt.task import parse_task

HELP = "replace a task's text, keeping its dates and priority unless given"


def arguments(p):
    p.add_argument("number", type=int)
    p.add_argument("text", nargs="+")


def run(ctx, args):
    old = ctx.todo.get(args.number)
    new = parse_task(" ".join(args.text))
    old.text = new.text
    if new.priority:
        old.priority = new.priority
    if new.created:
        old.created = new.created
    ctx.todo.save()
    ctx.say(f"{old.number} {old.format()}")
    ctx.say(f"TODO: {old.number} replaced.")
