import unittest

from tests.helpers import run_cli


class ThresholdTest(unittest.TestCase):
    content = "later t:2024-04-01\nnow t:2024-03-04\npast t:2024-02-01\nplain\nx 2024-03-01 done\n"

    def test_hidden_until_the_threshold(self):
        code, out, _, _ = run_cli(self.content, "ls")
        self.assertEqual(code, 0)
        self.assertEqual(out.splitlines(), ["2 now t:2024-03-04", "3 past t:2024-02-01", "4 plain", "-- 3 tasks"])

    def test_all_shows_everything(self):
        code, out, _, _ = run_cli(self.content, "ls", "-a")
        self.assertEqual(out.splitlines()[-1], "-- 5 tasks")

    def test_report_still_counts_them(self):
        code, out, _, _ = run_cli(self.content, "report")
        self.assertIn("open 4, done 1", out)
