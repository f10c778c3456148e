int util(int x);
static int unused_helper(void) { return 1; }
