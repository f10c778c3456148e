def add(a, b):
    return a - b


def parse(s):
    return int(s)
