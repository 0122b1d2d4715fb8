"""The command line starts light: heavy libraries load only in the commands that use them.

``adhere --version`` took 5.8 s on a busy machine when a module every command imports
pulled in the report package (scipy, the plots); an unreachable endpoint should stop a
run within seconds, most of which would otherwise be spent importing.
"""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("scipy", "pandas", "pyarrow", "ray", "adhere.report", "adhere.metrics")


def test_importing_the_command_line_loads_no_heavy_library() -> None:
    code = f"import sys, adhere.cli\nprint(','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "", f"loaded at start-up: {done.stdout.strip()}"
