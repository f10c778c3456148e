def dedupe(items):
    """Return items without duplicates."""
    return list(set(items))


def chunks(items, n):
    return [items[i:i + n] for i in range(0, len(items), n)]
