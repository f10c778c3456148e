import unittest
from words import word_counts


class Hidden(unittest.TestCase):
    def test_counts(self):
        c = word_counts("The cat and the hat. THE END, the end!")
        self.assertEqual(c["the"], 4)
        self.assertEqual(c["end"], 2)
        self.assertNotIn("end.", c)
        self.assertEqual(word_counts("Don't stop, don't.")["don't"], 2)
