import unittest

from bracket_balance import is_balanced


class BracketBalanceTest(unittest.TestCase):
    def test_balanced(self):
        for text in ["", "()", "{[()()]}", "f(a[1], {b: 2})", "no brackets"]:
            self.assertIs(is_balanced(text), True, text)

    def test_unbalanced(self):
        for text in ["([)]", "((", "}", "(]", "[[]"]:
            self.assertIs(is_balanced(text), False, text)
