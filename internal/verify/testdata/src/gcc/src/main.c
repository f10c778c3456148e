#include <stdio.h>
#include "util.h"

int main(void) {
    int x = "str";
    int y;
    printf("%d\n", undefined_var);
    return util(x, y);
}
