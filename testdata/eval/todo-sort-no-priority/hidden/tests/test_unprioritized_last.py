import unittest

from tests.helpers import run_cli
from todotxt.priority import rank
from todotxt.sorting import sort_tasks
from todotxt.task import parse_task


class UnprioritizedTest(unittest.TestCase):
    def test_rank(self):
        self.assertLess(rank("Z"), rank(None))
        self.assertLess(rank("A"), rank("B"))

    def test_ls_lists_them_last(self):
        code, out, _, _ = run_cli("plain\n(C) c\n(A) a\n", "ls")
        self.assertEqual(out.splitlines(), ["3 (A) a", "2 (C) c", "1 plain", "-- 3 tasks"])

    def test_reverse(self):
        tasks = [parse_task("plain", 1), parse_task("(A) a", 2)]
        self.assertEqual([t.number for t in sort_tasks(tasks, ["-priority"])], [1, 2])
