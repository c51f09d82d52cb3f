"""``python -m maw.cli``, as ``maw``."""

import sys

from maw.cli import main

sys.exit(main())
