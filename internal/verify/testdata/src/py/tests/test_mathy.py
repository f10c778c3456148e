from pkg.mathy import add, parse


def test_add():
    assert add(2, 3) == 5


def test_parse():
    assert parse("x") == 1


def helper(v):
    assert v, "value must be truthy"


def test_helper():
    helper(0)


def test_ok():
    assert add(1, 0) == 1
