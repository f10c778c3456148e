import os
import unittest

from tests.helpers import run_cli


class ArchiveTest(unittest.TestCase):
    def test_moves_done_tasks(self):
        code, out, text, d = run_cli("a\nx 2024-03-01 b\nc\n", "archive")
        self.assertEqual(code, 0)
        self.assertEqual(text, "a\nc\n")
        with open(os.path.join(d, "done.txt")) as f:
            self.assertEqual(f.read(), "x 2024-03-01 b\n")
        self.assertIn("1 task archived", out)
