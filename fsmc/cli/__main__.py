"""`python -m fsmc.cli`: the same as the `fsmc` command."""

import sys

from fsmc.cli import main

sys.exit(main())
