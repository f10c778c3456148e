#include <cstdio>

#include "collatz.h"

static int failures = 0;

static void check(long n, long want) {
    long got = collatz::steps(n);
    if (got != want) {
        std::printf("FAIL steps(%ld) = %ld, want %ld\n", n, got, want);
        ++failures;
    } else {
        std::printf("ok steps(%ld)\n", n);
    }
}

int main() {
    check(1, 0);
    check(12, 9);
    check(27, 111);
    check(1000000, 152);
    check(0, -1);
    check(-5, -1);
    return failures == 0 ? 0 : 1;
}
