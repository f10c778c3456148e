import datetime
import unittest

from todotxt.task import parse_task


class TaskTest(unittest.TestCase):
    def test_open_task(self):
        t = parse_task("(A) 2024-03-01 Call the plumber @phone +house due:2024-03-05")
        self.assertEqual(t.priority, "A")
        self.assertEqual(t.created, datetime.date(2024, 3, 1))
        self.assertEqual(t.contexts, ["phone"])
        self.assertEqual(t.projects, ["house"])
        self.assertEqual(t.due, datetime.date(2024, 3, 5))
        self.assertFalse(t.done)

    def test_done_task(self):
        t = parse_task("x 2024-03-02 2024-03-01 Pay rent +house")
        self.assertTrue(t.done)
        self.assertEqual(t.completed, datetime.date(2024, 3, 2))
        self.assertEqual(t.created, datetime.date(2024, 3, 1))
        self.assertEqual(t.text, "Pay rent +house")

    def test_round_trip(self):
        for line in ["(B) 2024-01-01 a @x", "x 2024-02-02 2024-01-01 b", "plain text", "(C) c"]:
            self.assertEqual(parse_task(line).format(), line)

    def test_not_a_priority(self):
        t = parse_task("(a) lower case is text")
        self.assertIsNone(t.priority)
        self.assertEqual(t.text, "(a) lower case is text")
