import unittest
from game.fizz import fizzbuzz, sequence


class Hidden(unittest.TestCase):
    def test_words(self):
        self.assertEqual(fizzbuzz(15), "FizzBuzz")
        self.assertEqual(fizzbuzz(30), "FizzBuzz")
        self.assertEqual(fizzbuzz(9), "Fizz")
        self.assertEqual(fizzbuzz(10), "Buzz")
        self.assertEqual(fizzbuzz(7), "7")
        self.assertEqual(sequence(5), ["1", "2", "Fizz", "4", "Buzz"])
