import unittest

from tests.helpers import TODAY
from todotxt.filters import compile_query
from todotxt.task import parse_task

TASKS = [
    parse_task("(A) Call mom @phone +family due:2024-03-01"),
    parse_task("(C) Buy milk @store due:2024-03-10"),
    parse_task("Fix the fence @home +house"),
    parse_task("(B) Plan trip +holiday due:2024-03-04"),
]


def texts(*words):
    q = compile_query(list(words), TODAY)
    return [t.text.split()[0] for t in TASKS if q(t)]


class FiltersTest(unittest.TestCase):
    def test_context_and_project(self):
        self.assertEqual(texts("@phone"), ["Call"])
        self.assertEqual(texts("+house"), ["Fix"])
        self.assertEqual(texts("-@phone", "-@store"), ["Fix", "Plan"])

    def test_priority(self):
        self.assertEqual(texts("pri:A"), ["Call"])
        self.assertEqual(texts("pri:b-c"), ["Buy", "Plan"])

    def test_due(self):
        self.assertEqual(texts("due:<today"), ["Call"])
        self.assertEqual(texts("due:today"), ["Plan"])
        self.assertEqual(texts("due:>=today"), ["Buy", "Plan"])

    def test_words(self):
        self.assertEqual(texts("MILK"), ["Buy"])
        self.assertEqual(texts("-milk", "-fence"), ["Call", "Plan"])
