"""``python -m adhere.cli``."""

import sys

from adhere.cli import main

sys.exit(main())
