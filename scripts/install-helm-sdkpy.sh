#!/usr/bin/env bash
# Install helm-sdkpy — Python bindings with Helm's Go library bundled — for the chart
# tests, into $ADHERE_HELM_SDKPY or ~/.cache/adhere/helm-sdkpy (outside the repository),
# once. It declares Python >= 3.12, so it cannot be in uv.lock; on 3.11 it imports and
# works when installed with --ignore-requires-python. Its one dependency, cffi, is in the
# locked environment already (through cryptography). No helm binary is packaged here.
set -euo pipefail
VERSION=0.1.32
target="${ADHERE_HELM_SDKPY:-$HOME/.cache/adhere/helm-sdkpy}"
if [ -f "$target/helm_sdkpy-$VERSION.dist-info/METADATA" ]; then
  exit 0
fi
echo "== installing helm-sdkpy $VERSION into $target" >&2
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 \
  "helm-sdkpy==$VERSION" -d "$tmp/wheel"
python3 -m pip install --quiet --no-deps --ignore-requires-python --target "$tmp/site" \
  "$tmp"/wheel/helm_sdkpy-*.whl
rm -rf "$target"
mkdir -p "$(dirname "$target")"
mv "$tmp/site" "$target"
