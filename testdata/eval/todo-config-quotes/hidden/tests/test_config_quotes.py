import os
import tempfile
import unittest

from todotxt import config
from todotxt.errors import TodoError


class ConfigQuotesTest(unittest.TestCase):
    def test_quoted_values(self):
        got = config.parse('file = "~/My Notes/todo.txt"\nsort = \'due priority\'\ncolor = always # yes\n')
        self.assertEqual(got, {"file": "~/My Notes/todo.txt", "sort": "due priority", "color": "always"})

    def test_unbalanced_quote_stays(self):
        self.assertEqual(config.parse('file = "odd.txt\n')["file"], '"odd.txt')

    def test_load(self):
        d = tempfile.mkdtemp()
        cfg = os.path.join(d, "todo.cfg")
        with open(cfg, "w") as f:
            f.write('file = "%s"\n' % os.path.join(d, "my todo.txt"))
        self.assertEqual(config.load({"TODO_CONFIG": cfg})["file"], os.path.join(d, "my todo.txt"))
        with self.assertRaises(TodoError):
            config.parse("colour = red\n")
