import unittest

from tests.helpers import run_cli


class DonePriorityTest(unittest.TestCase):
    def test_done_keeps_priority_as_tag(self):
        code, _, text, _ = run_cli("(A) 2024-03-01 Call mom @phone\n", "do", "1")
        self.assertEqual(code, 0)
        self.assertEqual(text, "x 2024-03-04 2024-03-01 Call mom @phone pri:A\n")

    def test_recurring_task_gets_its_priority_back(self):
        code, _, text, _ = run_cli("(B) Water plants due:2024-03-01 rec:3d\n", "do", "1")
        self.assertEqual(code, 0)
        self.assertEqual(text.splitlines(), [
            "x 2024-03-04 Water plants due:2024-03-01 rec:3d pri:B",
            "(B) 2024-03-04 Water plants due:2024-03-07 rec:3d",
        ])

    def test_no_priority_no_tag(self):
        code, _, text, _ = run_cli("plain\n", "do", "1")
        self.assertEqual(text, "x 2024-03-04 plain\n")
