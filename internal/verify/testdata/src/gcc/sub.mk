all:
	gcc -Wall -Wextra -c main.c -o /dev/null
