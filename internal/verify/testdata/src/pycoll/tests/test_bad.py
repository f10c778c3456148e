def test_x():
    x = (1,
