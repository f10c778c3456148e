import datetime
import unittest

from tests.helpers import run_cli
from todotxt.recurrence import next_occurrence
from todotxt.task import parse_task


class StrictRecurrenceTest(unittest.TestCase):
    def test_plus_counts_from_the_due_date(self):
        t = parse_task("Pay bill due:2024-03-04 rec:+1w")
        n = next_occurrence(t, datetime.date(2024, 3, 6))
        self.assertEqual(n.due, datetime.date(2024, 3, 11))
        t = parse_task("Rent due:2024-01-31 t:2024-01-28 rec:+1m")
        n = next_occurrence(t, datetime.date(2024, 2, 3))
        self.assertEqual(n.due, datetime.date(2024, 2, 29))
        self.assertEqual(n.threshold, datetime.date(2024, 2, 26))

    def test_without_plus_counts_from_completion(self):
        t = parse_task("Water due:2024-03-01 rec:1w")
        self.assertEqual(next_occurrence(t, datetime.date(2024, 3, 6)).due, datetime.date(2024, 3, 13))

    def test_cli(self):
        code, _, text, _ = run_cli("Pay bill due:2024-02-26 rec:+1w\n", "do", "1")
        self.assertEqual(code, 0)
        self.assertEqual(text.splitlines()[1], "2024-03-04 Pay bill due:2024-03-04 rec:+1w")
