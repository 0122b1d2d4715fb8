"""The differential test against the public ManyIH checkers (needs the public repository).

Runs ``bench/manyih_public_diff.py`` in a subprocess: it reads the public checkers
from the git directory in ``ADHERE_MANYIH_PUBLIC`` (default: the local mirror) into a
temporary directory, checks a corpus of more than 2,000 programs × 41 styles with both
implementations and exits 0 only if public-compatible mode agrees on every pair.
Without the public repository this test cannot run; the golden verdicts in
``tests/unit/manyih/public_golden.json.gz`` cover the same corpus offline.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

MIRROR = Path(os.environ.get("ADHERE_MANYIH_PUBLIC", "/work/.mirror/JHU-CLSP+ManyIH/repo"))
DATA = ROOT.parent / "shared" / "data" / "manyih" / "coding.json"


@pytest.mark.skipif(
    not (MIRROR / "HEAD").exists(), reason=f"no public ManyIH repository at {MIRROR}"
)  # noqa: E501
@pytest.mark.skipif(not DATA.is_file(), reason="the published ManyIH data is not here")
@pytest.mark.timeout(1500)  # about 4 minutes on 2 busy cores: 3,000 restylings, 250,000 checks
def test_public_compatible_checkers_agree_with_the_public_ones_everywhere() -> None:
    run = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "manyih_public_diff.py")],
        capture_output=True, text=True, timeout=1400, cwd=ROOT,
        env={**os.environ, "ADHERE_MANYIH_PUBLIC": str(MIRROR), "ADHERE_MANYIH_DATA": str(DATA)},
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    found = re.search(r"programs: (\d+); styles: (\d+); pairs: (\d+)", run.stdout)
    assert found, run.stdout
    programs, styles, pairs = map(int, found.groups())
    assert programs >= 2000 and styles == 41
    assert f"agrees with the public checkers on {pairs} / {pairs}" in run.stdout
