import unittest

from tests.helpers import run_cli


class CliTest(unittest.TestCase):
    def test_add(self):
        code, out, text, _ = run_cli("", "add", "Buy milk @store")
        self.assertEqual(code, 0)
        self.assertEqual(text, "2024-03-04 Buy milk @store\n")
        self.assertIn("TODO: 1 added.", out)

    def test_do_recurring(self):
        code, out, text, _ = run_cli("Water plants due:2024-03-01 rec:3d\n", "do", "1")
        self.assertEqual(code, 0)
        self.assertEqual(text, "x 2024-03-04 Water plants due:2024-03-01 rec:3d\n2024-03-04 Water plants due:2024-03-07 rec:3d\n")

    def test_ls(self):
        code, out, _, _ = run_cli("(B) b\n(A) a @x\nx 2024-01-01 done\n", "ls")
        self.assertEqual(out.splitlines(), ["2 (A) a @x", "1 (B) b", "-- 2 tasks"])

    def test_pri_and_depri(self):
        code, _, text, _ = run_cli("a\nb\n", "pri", "2", "c")
        self.assertEqual(text, "a\n(C) b\n")
        code, _, text, _ = run_cli("(A) a\n", "depri", "1")
        self.assertEqual(text, "a\n")

    def test_no_such_task(self):
        code, _, _, _ = run_cli("a\n", "do", "5")
        self.assertEqual(code, 1)
