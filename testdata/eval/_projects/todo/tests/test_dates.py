import datetime
import unittest

from todotxt import dates
from todotxt.errors import TodoError

MONDAY = datetime.date(2024, 3, 4)


class DatesTest(unittest.TestCase):
    def test_resolve(self):
        self.assertEqual(dates.resolve("today", MONDAY), MONDAY)
        self.assertEqual(dates.resolve("tomorrow", MONDAY), datetime.date(2024, 3, 5))
        self.assertEqual(dates.resolve("friday", MONDAY), datetime.date(2024, 3, 8))
        self.assertEqual(dates.resolve("+3d", MONDAY), datetime.date(2024, 3, 7))
        self.assertEqual(dates.resolve("2024-12-25", MONDAY), datetime.date(2024, 12, 25))
        with self.assertRaises(TodoError):
            dates.resolve("someday", MONDAY)

    def test_add_months(self):
        self.assertEqual(dates.add_months(datetime.date(2024, 1, 31), 1), datetime.date(2024, 2, 29))
        self.assertEqual(dates.add_months(datetime.date(2024, 11, 15), 3), datetime.date(2025, 2, 15))
