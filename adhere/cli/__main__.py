"""``python -m adhere.cli``."""

import sys

from adhere.cli._app import main

sys.exit(main())
