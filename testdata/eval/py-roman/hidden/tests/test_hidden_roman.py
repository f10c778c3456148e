import unittest
from roman import to_roman


class Hidden(unittest.TestCase):
    def test_values(self):
        for n, want in [(1, "I"), (4, "IV"), (9, "IX"), (14, "XIV"), (40, "XL"), (90, "XC"), (400, "CD"), (1994, "MCMXCIV"), (3999, "MMMCMXCIX")]:
            self.assertEqual(to_roman(n), want)

    def test_range(self):
        for bad in [0, -1, 4000]:
            with self.assertRaises(ValueError):
                to_roman(bad)
