import json


def load(text):
    return json.loads(text)


def run(cfg):
    try:
        return load(cfg)
    except ValueError as e:
        raise RuntimeError("bad config") from e
