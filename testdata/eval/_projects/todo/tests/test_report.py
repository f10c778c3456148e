import unittest

from tests.helpers import run_cli


class ReportTest(unittest.TestCase):
    def test_counts(self):
        content = "a +p @c due:2024-03-01\nb +p\nx 2024-03-01 c +p\n"
        code, out, _, _ = run_cli(content, "report")
        self.assertEqual(code, 0)
        self.assertIn("open 2, done 1, overdue 1", out)
        self.assertIn("+p: 2", out)
