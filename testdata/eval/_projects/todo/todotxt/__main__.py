import sys

from todotxt.cli.main import main

sys.exit(main(sys.argv[1:]))
