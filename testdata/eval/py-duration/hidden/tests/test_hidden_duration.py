import unittest
from timeparse import parse_duration


class Hidden(unittest.TestCase):
    def test_units(self):
        self.assertEqual(parse_duration("1h30m"), 5400)
        self.assertEqual(parse_duration("1h2m3s"), 3723)
        self.assertEqual(parse_duration("45s"), 45)

    def test_errors(self):
        for bad in ["", "5d", "abc", "10"]:
            with self.assertRaises(ValueError, msg=bad):
                parse_duration(bad)
