from todotxt.archive import archive

HELP = "move done tasks to done.txt"


def arguments(p):
    pass


def run(ctx, args):
    n = archive(ctx.todo)
    ctx.say(f"TODO: {n} task{'s' if n != 1 else ''} archived.")
