import unittest

from todotxt.sorting import sort_tasks
from todotxt.task import parse_task


class SortingTest(unittest.TestCase):
    def test_priority_then_due(self):
        tasks = [parse_task(s, i + 1) for i, s in enumerate([
            "(B) b due:2024-03-02",
            "(A) a",
            "(B) c due:2024-03-01",
        ])]
        got = [t.text.split()[0] for t in sort_tasks(tasks)]
        self.assertEqual(got, ["a", "c", "b"])

    def test_descending(self):
        tasks = [parse_task("x", 1), parse_task("y", 2)]
        self.assertEqual([t.number for t in sort_tasks(tasks, ["-number"])], [2, 1])
