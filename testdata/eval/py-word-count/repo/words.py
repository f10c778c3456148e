from collections import Counter


def word_counts(text):
    """Count how often each word occurs in text."""
    return Counter(text.split())


def top(text, n):
    return [w for w, _ in word_counts(text).most_common(n)]
