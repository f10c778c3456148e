def is_balanced(text):
    pass
