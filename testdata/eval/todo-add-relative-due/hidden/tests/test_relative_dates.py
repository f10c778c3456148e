import unittest

from tests.helpers import run_cli


class RelativeDatesTest(unittest.TestCase):
    def test_add(self):
        code, _, text, _ = run_cli("", "add", "Pay bill due:friday t:+2d +money")
        self.assertEqual(code, 0)
        self.assertEqual(text, "2024-03-04 Pay bill due:2024-03-08 t:2024-03-06 +money\n")

    def test_add_then_list_due(self):
        code, _, _, _ = run_cli("", "add", "x due:today")
        self.assertEqual(code, 0)
        code, _, text, _ = run_cli("", "add", "call due:tomorrow")
        self.assertIn("due:2024-03-05", text)

    def test_bad_date_is_an_error(self):
        code, _, text, _ = run_cli("", "add", "Pay due:someday")
        self.assertEqual(code, 1)
        self.assertEqual(text, "")

    def test_replace(self):
        code, _, text, _ = run_cli("(A) 2024-03-01 old\n", "replace", "1", "new due:+1w")
        self.assertEqual(text, "(A) 2024-03-01 new due:2024-03-11\n")

    def test_absolute_dates_stay(self):
        code, _, text, _ = run_cli("", "add", "--no-date", "a due:2024-12-25 see:http://x")
        self.assertEqual(text, "a due:2024-12-25 see:http://x\n")
