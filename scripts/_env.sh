# Shared set-up for the scripts: make sure uv exists and the locked environment is synced.
# Sourced, not run. Needs only Python 3.11 with pip.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$HOME/.local/bin:$PATH"
if ! command -v uv >/dev/null 2>&1; then
  echo "installing uv (pip install --user uv)…" >&2
  python3 -m pip install --user --quiet uv 2>/dev/null || python3 -m pip install --quiet uv
fi
uv sync --frozen --quiet
