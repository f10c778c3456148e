"""The words of a task's text that mean something: @contexts, +projects and
key:value tags (due:2024-03-05, rec:1w, t:2024-02-01)."""

import re

_KEYVALUE = re.compile(r"^([A-Za-z][\w-]*):(\S+)$")


def is_context(word):
    return len(word) > 1 and word.startswith("@")


def is_project(word):
    return len(word) > 1 and word.startswith("+")


def contexts(text):
    """The contexts of text, without the @, in order, once each."""
    return _unique(w[1:] for w in text.split() if is_context(w))


def projects(text):
    """The projects of text, without the +, in order, once each."""
    return _unique(w[1:] for w in text.split() if is_project(w))


def keyvalues(text):
    """The key:value tags of text, the last one winning. Links
    (http://…) are not tags."""
    out = {}
    for w in text.split():
        m = _KEYVALUE.match(w)
        if m and not m.group(2).startswith("//"):
            out[m.group(1)] = m.group(2)
    return out


def set_keyvalue(text, key, value):
    """text with key:value set: replaced where it is, appended where not;
    value None removes it."""
    words = text.split()
    out, found = [], False
    for w in words:
        m = _KEYVALUE.match(w)
        if m and m.group(1) == key:
            found = True
            if value is not None:
                out.append(f"{key}:{value}")
            continue
        out.append(w)
    if not found and value is not None:
        out.append(f"{key}:{value}")
    return " ".join(out)


def _unique(items):
    seen, out = set(), []
    for i in items:
        if i not in seen:
            seen.add(i)
            out.append(i)
    return out
