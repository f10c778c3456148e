import json

def g():
    return undefined_name

g()
