def total_amount(text):
    """Sum the "amount" column of CSV text."""
    lines = text.split("\n")
    header = lines[0].split(",")
    col = header.index("amount")
    total = 0.0
    for line in lines:
        total += float(line.split(",")[col])
    return total
