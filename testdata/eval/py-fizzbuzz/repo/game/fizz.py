def fizzbuzz(n):
    """Return the FizzBuzz word for n."""
    if n % 3 == 0:
        return "Fizz"
    if n % 5 == 0:
        return "Buzz"
    if n % 15 == 0:
        return "FizzBuzz"
    return str(n)


def sequence(upto):
    return [fizzbuzz(i) for i in range(1, upto + 1)]
