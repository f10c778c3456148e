import unittest
from listutil import dedupe


class Hidden(unittest.TestCase):
    def test_order(self):
        self.assertEqual(dedupe([3, 1, 3, 2, 1]), [3, 1, 2])
        self.assertEqual(dedupe("banana"), ["b", "a", "n"])
        self.assertEqual(dedupe([]), [])

    def test_unhashable(self):
        self.assertEqual(dedupe([[1], [2], [1]]), [[1], [2]])
