import sys

from maw.cli import main

sys.exit(main())
