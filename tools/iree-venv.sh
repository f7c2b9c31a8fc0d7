#!/usr/bin/env bash
# Creates (idempotently) the Python venv that holds the reference tool iree-opt, from the PyPI
# package iree-base-compiler, pinned. Tests and benchmarks find iree-opt at
# $TUNESPEC_IREE_VENV/bin/iree-opt (default: target/iree-venv/bin/iree-opt).
#
# Why a venv under target/: it is per checkout, removed by `cargo clean`, and never touches the
# system Python. Prints the path of iree-opt on success.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
venv=${TUNESPEC_IREE_VENV:-$here/target/iree-venv}
version=3.13.0

if [ -x "$venv/bin/iree-opt" ] && [ -f "$venv/.tunespec-iree-$version" ]; then
  echo "$venv/bin/iree-opt"
  exit 0
fi
python=${PYTHON:-python3}
mkdir -p "$(dirname "$venv")"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "iree-base-compiler==$version" >&2
"$venv/bin/iree-opt" --version >/dev/null
touch "$venv/.tunespec-iree-$version"
echo "$venv/bin/iree-opt"
