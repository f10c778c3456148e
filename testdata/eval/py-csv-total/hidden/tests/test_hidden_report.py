import unittest
from report import total_amount


class Hidden(unittest.TestCase):
    def test_total(self):
        text = "name,amount\nalice, 10.5\nbob,4.5 \n\n\"carol, jr\",5\n"
        self.assertAlmostEqual(total_amount(text), 20.0)
        self.assertEqual(total_amount("name,amount\n"), 0.0)
