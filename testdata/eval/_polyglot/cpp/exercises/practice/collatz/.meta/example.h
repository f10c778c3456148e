#pragma once

namespace collatz {
long steps(long n);
}
