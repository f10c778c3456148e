import datetime
import unittest

from todotxt.errors import TodoError
from todotxt.recurrence import next_occurrence, parse_rec
from todotxt.task import parse_task


class RecurrenceTest(unittest.TestCase):
    def test_from_completion(self):
        t = parse_task("Water plants due:2024-03-01 rec:3d")
        n = next_occurrence(t, datetime.date(2024, 3, 4))
        self.assertEqual(n.due, datetime.date(2024, 3, 7))
        self.assertEqual(n.created, datetime.date(2024, 3, 4))
        self.assertFalse(n.done)

    def test_not_recurring(self):
        self.assertIsNone(next_occurrence(parse_task("once"), datetime.date(2024, 3, 4)))

    def test_bad_rec(self):
        with self.assertRaises(TodoError):
            parse_rec("weekly")
