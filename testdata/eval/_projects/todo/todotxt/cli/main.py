"""Argument parsing and dispatch: todo [-f FILE] COMMAND [ARGS]."""

import argparse
import sys

from todotxt import config
from todotxt.cli.commands import COMMANDS
from todotxt.cli.context import Context
from todotxt.errors import TodoError


def build_parser():
    p = argparse.ArgumentParser(prog="todo", description="A todo.txt manager.")
    p.add_argument("-f", "--file", help="the todo.txt to use")
    sub = p.add_subparsers(dest="command", required=True)
    for name, cmd in COMMANDS.items():
        sp = sub.add_parser(name, help=cmd.HELP)
        cmd.arguments(sp)
    return p


def main(argv, env=None, out=None, today=None, err=None):
    """Run the command line; returns the exit code."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    try:
        settings = config.load(env)
        if args.file:
            settings["file"] = args.file
        ctx = Context(settings=settings, out=out)
        if today is not None:
            ctx.today = today
        return COMMANDS[args.command].run(ctx, args) or 0
    except TodoError as e:
        print(f"todo: {e}", file=err)
        return 1
