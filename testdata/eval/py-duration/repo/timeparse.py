import re

_UNITS = {"h": 3600, "m": 60}


def parse_duration(text):
    """Parse a duration like "1h30m" into seconds."""
    total = 0
    for amount, unit in re.findall(r"(\d+)([a-z])", text):
        total += int(amount) * _UNITS.get(unit, 0)
    return total
