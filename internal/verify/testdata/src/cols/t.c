int main(void) {
	int x = "s";
	/* é */ int y = "é";
	return 0;
}
