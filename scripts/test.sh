#!/usr/bin/env bash
# The whole test suite: tool installs the tests need, linters, type checks, then pytest.
source "$(dirname "$0")/_env.sh"

# javac and g++ compile the PACIFIC Java and C++ renderings in the tests.
need=()
command -v javac >/dev/null 2>&1 || need+=(default-jdk-headless)
command -v g++ >/dev/null 2>&1 || need+=(g++)
# Debian's Prometheus (with promtool) scrapes the exporter and checks the alert rules.
command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1 || need+=(prometheus)
# bubblewrap sandboxes untrusted code (and its attack tests run in it); Chromium,
# headless, loads the report's pages in the browser tests.
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
command -v socat >/dev/null 2>&1 || need+=(socat)  # the agent sandbox's proxy bridge
command -v chromium >/dev/null 2>&1 || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing ${need[*]} (apt)…" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

# The six agent CLIs the end-to-end tests drive, pinned, cached outside the repository.
echo "== agent CLIs (npm, cached in \${ADHERE_SCAFFOLD_CACHE:-~/.cache/adhere/scaffolds})" >&2
bash scripts/install-scaffolds.sh

# The real model server the e2e tests and examples/real-model use: llama.cpp's server and
# SmolLM2-135M-Instruct, built once (~5 min), cached outside the repository.
echo "== model server (built once, cached in \${ADHERE_MODEL_SERVER_CACHE:-~/.cache/adhere/model-server})" >&2
bash scripts/install-model-server.sh

# helm-sdkpy (Helm's Go library) for the chart tests, cached outside the repository.
bash scripts/install-helm-sdkpy.sh

echo "== ruff" >&2
uv run ruff check .
uv run ruff format --check .
echo "== mypy" >&2
uv run mypy
echo "== import-linter" >&2
uv run lint-imports
echo "== pytest" >&2
uv run pytest -q "$@"
