#include "collatz.h"

namespace collatz {
long steps(long n) {
    if (n < 1) return -1;
    long count = 0;
    while (n != 1) {
        n = n % 2 == 0 ? n / 2 : 3 * n + 1;
        ++count;
    }
    return count;
}
}  // namespace collatz
