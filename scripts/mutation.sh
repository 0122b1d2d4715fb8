#!/usr/bin/env bash
# Mutation testing of the modules where scores are computed (not run in CI: it takes
# minutes per module). Runs in a temporary copy of the repository; see docs/development.md.
#   bash scripts/mutation.sh                              # every scoring-critical module
#   bash scripts/mutation.sh adhere/metrics/_rates.py     # one module
#   bash scripts/mutation.sh --list                       # modules and their tests
source "$(dirname "$0")/_env.sh"
exec uv run --frozen python -m scripts.mutation "$@"
