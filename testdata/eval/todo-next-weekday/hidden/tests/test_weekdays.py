import datetime
import unittest

from tests.helpers import run_cli
from todotxt import dates

MONDAY = datetime.date(2024, 3, 4)


class WeekdayTest(unittest.TestCase):
    def test_todays_name_means_next_week(self):
        self.assertEqual(dates.resolve("monday", MONDAY), datetime.date(2024, 3, 11))
        self.assertEqual(dates.resolve("Sunday", datetime.date(2024, 3, 10)), datetime.date(2024, 3, 17))
        self.assertEqual(dates.resolve("tuesday", MONDAY), datetime.date(2024, 3, 5))

    def test_ls(self):
        code, out, _, _ = run_cli("a due:2024-03-04\nb due:2024-03-11\n", "ls", "due:monday")
        self.assertEqual(out.splitlines(), ["2 b due:2024-03-11", "-- 1 task"])
