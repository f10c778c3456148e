"""The commands, by name: each module has HELP, arguments(parser) and
run(ctx, args)."""

from todotxt.cli.commands import add, archive_cmd, depri, do, export_cmd, import_cmd, ls, pri, replace, report_cmd, rm

COMMANDS = {
    "add": add,
    "ls": ls,
    "do": do,
    "pri": pri,
    "depri": depri,
    "rm": rm,
    "replace": replace,
    "archive": archive_cmd,
    "report": report_cmd,
    "export": export_cmd,
    "import": import_cmd,
}
