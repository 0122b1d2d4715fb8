#!/usr/bin/env bash
# Re-lock VeriCode's sandbox environment (adhere/suites/vericode/env/requirements.txt)
# from requirements.in: every transitive dependency pinned, for Python 3.10 on
# x86_64 Linux. `adhere setup vericode` installs the lock; a changed lock gets a new
# environment directory (it is named after the lock's hash).
set -euo pipefail
cd "$(dirname "$0")/../adhere/suites/vericode/env"
uv pip compile --quiet --python-version 3.10 --python-platform x86_64-manylinux_2_28 \
    --no-header requirements.in -o requirements.txt
sed -i '1i # Locked by scripts/vericode_env_lock.sh from requirements.in: do not edit by hand.' \
    requirements.txt
