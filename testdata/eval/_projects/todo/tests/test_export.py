import json
import os
import unittest

from tests.helpers import run_cli
from todotxt.errors import TodoError
from todotxt.export import to_csv, to_json
from todotxt.importer import from_csv
from todotxt.task import parse_task

TODO = "(A) 2024-03-01 Call Bob @phone +house due:2024-03-05\nx 2024-03-02 2024-03-01 Pay rent +house\n"


def tasks():
    return [parse_task(line, n) for n, line in enumerate(TODO.splitlines(), start=1)]


class ExportTest(unittest.TestCase):
    def test_json(self):
        got = json.loads(to_json(tasks()))
        self.assertEqual(got[0], {
            "number": 1, "done": False, "priority": "A", "created": "2024-03-01", "completed": None,
            "due": "2024-03-05", "text": "Call Bob @phone +house due:2024-03-05", "contexts": ["phone"], "projects": ["house"],
        })
        self.assertEqual((got[1]["done"], got[1]["completed"], got[1]["due"]), (True, "2024-03-02", None))

    def test_csv(self):
        self.assertEqual(to_csv(tasks()).splitlines(), [
            "number,done,priority,created,completed,due,text,contexts,projects",
            "1,,A,2024-03-01,,2024-03-05,Call Bob @phone +house due:2024-03-05,phone,house",
            "2,x,,2024-03-01,2024-03-02,,Pay rent +house,,house",
        ])

    def test_csv_round_trip(self):
        back = from_csv(to_csv(tasks()))
        self.assertEqual([t.format() for t in back], TODO.splitlines())


class ImportTest(unittest.TestCase):
    def test_columns_by_name(self):
        got = from_csv("Text,Due,Priority,Done\nBuy milk @store,2024-04-01,b,\n\n\"Read, slowly\",,,yes\n")
        self.assertEqual([t.format() for t in got], ["(B) Buy milk @store due:2024-04-01", "x Read, slowly"])

    def test_errors(self):
        for text, want in [
            ("", "empty CSV"),
            ("title\nx\n", "unknown column 'title'"),
            ("due\n2024-01-01\n", "no text column"),
            ("text,due\na,tomorrow\n", "line 2: due 'tomorrow' is not a date"),
            ("text,priority\na,AB\n", "not a priority"),
            ("text,done\na,maybe\n", "line 2: done 'maybe' is not yes or no"),
            ("text,due\na,\n,2024-01-01\n", "line 3: a task needs a text"),
            ("text\na,b\n", "line 2: 2 cells"),
        ]:
            with self.subTest(text=text):
                with self.assertRaisesRegex(TodoError, want):
                    from_csv(text)


class CliTest(unittest.TestCase):
    def test_export(self):
        code, out, _, _ = run_cli(TODO, "export", "--format", "csv", "--open")
        self.assertEqual(code, 0)
        self.assertEqual(len(out.splitlines()), 2)
        code, out, _, _ = run_cli(TODO, "export")
        self.assertEqual([t["number"] for t in json.loads(out)], [1, 2])

    def test_import(self):
        code, out, text, d = run_cli("a\n", "export")
        path = os.path.join(d, "in.csv")
        with open(path, "w", encoding="utf-8") as f:
            f.write("text,due\nb @x,2024-05-01\n")
        code, out, text, _ = run_cli("a\n", "import", path)
        self.assertEqual(code, 0)
        self.assertEqual(text, "a\n2024-03-04 b @x due:2024-05-01\n")
        self.assertIn("TODO: 1 imported.", out)
        with open(path, "w", encoding="utf-8") as f:
            f.write("text,due\nb,soon\n")
        code, out, text, _ = run_cli("a\n", "import", path)
        self.assertEqual((code, text), (1, "a\n"))
        self.assertIn("todo: line 2: due 'soon' is not a date", out)
        code, out, _, _ = run_cli("a\n", "import", os.path.join(d, "missing.csv"))
        self.assertEqual(code, 1)
        self.assertIn("cannot read", out)
