import unittest

from tests.helpers import run_cli


class ContextCaseTest(unittest.TestCase):
    content = "a @Home +Garden\nb @home +garden\nc @work\n"

    def test_ls(self):
        code, out, _, _ = run_cli(self.content, "ls", "@HOME")
        self.assertEqual(out.splitlines(), ["1 a @Home +Garden", "2 b @home +garden", "-- 2 tasks"])
        code, out, _, _ = run_cli(self.content, "ls", "--", "-+garden")
        self.assertEqual(out.splitlines(), ["3 c @work", "-- 1 task"])

    def test_report(self):
        code, out, _, _ = run_cli(self.content, "report")
        self.assertIn("@Home: 2", out)
        self.assertIn("+Garden: 2", out)
        self.assertNotIn("@home", out)
