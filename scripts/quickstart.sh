#!/usr/bin/env bash
# The main job on the embedded default: run the quickstart rollout and print its report.
source "$(dirname "$0")/_env.sh"
uv run adhere run examples/quickstart/rollout.yaml "$@"
