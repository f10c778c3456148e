if (x == 1) { debugger; }
