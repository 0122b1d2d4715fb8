#!/usr/bin/env bash
# Install the six pinned agent CLIs (claude-code, kilo, droid, codex, qwen-code,
# gemini-cli) from npm into the scaffold cache, outside the repository:
# $ADHERE_SCAFFOLD_CACHE, else ~/.cache/adhere/scaffolds. Finished installs are
# skipped, so running it again is quick. Extra arguments go to the installer, e.g.
# `scripts/install-scaffolds.sh --cache-dir /data/scaffolds`.
source "$(dirname "$0")/_env.sh"

for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "error: $tool is not on PATH; the agent CLIs need Node.js 20 or later" >&2
    exit 1
  fi
done

echo "== installing scaffold CLIs (node $(node --version), npm $(npm --version 2>/dev/null))" >&2
if ! uv run python -m adhere.scaffolds.install --all "$@"; then
  echo "error: installing the scaffold CLIs failed (see the npm output above)" >&2
  exit 1
fi
