"""`python -m fsmc` runs the command line."""

import sys

from fsmc.cli import main

sys.exit(main())
