import unittest
from shop.inventory import Inventory


class Hidden(unittest.TestCase):
    def test_remove(self):
        inv = Inventory()
        inv.add("apple", 3)
        self.assertTrue(inv.remove("apple"))
        self.assertEqual(inv.count("apple"), 2)
        self.assertFalse(inv.remove("apple", 5))
        self.assertEqual(inv.count("apple"), 2)
        self.assertTrue(inv.remove("apple", 2))
        self.assertNotIn("apple", inv.items)
        self.assertFalse(inv.remove("pear"))
