class Inventory:
    def __init__(self):
        self.items = {}

    def add(self, name, qty=1):
        self.items[name] = self.items.get(name, 0) + qty

    def remove(self, name, qty=1):
        del self.items[name]
        return True

    def count(self, name):
        return self.items.get(name, 0)
