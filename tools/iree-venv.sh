#!/usr/bin/env bash
# Creates (idempotently) a Python venv holding IREE's compiler (iree-opt, iree-compile and
# libIREECompiler.so) from the PyPI package iree-base-compiler, and IREE's runtime
# (iree-benchmark-module, iree-run-module: `tunespec bench`) from iree-base-runtime, both pinned
# to the same release. Prints the path of iree-opt on success.
#
#   tools/iree-venv.sh            3.13.0 (the reference) in $TUNESPEC_IREE_VENV, default
#                                 target/iree-venv; tests and benchmarks find it there
#   tools/iree-venv.sh 3.12.0     another release, in target/iree-venv-3.12.0; without arguments
#                                 the script also makes the releases in $IREE_OTHER_VERSIONS
#                                 (default 3.10.0 3.11.0 3.12.0: every other release tunespec
#                                 supports, which the tests judge tunespec against too; 3.10 and
#                                 3.11 are the SHARK tuner's), and pre-commit's venv
#                                 (tools/pre-commit-venv.sh)
#
# Why a venv under target/: it is per checkout, removed by `cargo clean`, and never touches the
# system Python.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
version=${1:-3.13.0}
if [ "$#" -gt 0 ]; then
  venv=$here/target/iree-venv-$version
else
  venv=${TUNESPEC_IREE_VENV:-$here/target/iree-venv}
fi

# Without arguments, the other venvs are made beside this one, all at once: each is a download
# and an unpack into a directory of its own (pip's cache is safe to share), so on a fresh machine
# they take as long as the largest rather than the sum. Every one is waited for, and any failure
# fails this script after all have ended.
pids=()
if [ "$#" -eq 0 ]; then
  for other in ${IREE_OTHER_VERSIONS-3.10.0 3.11.0 3.12.0}; do
    "$0" "$other" >/dev/null &
    pids+=("$!")
  done
  # The time phase's machine: IREE's runtime alone (tools/iree-runtime-venv.sh).
  "$here/tools/iree-runtime-venv.sh" >/dev/null &
  pids+=("$!")
  # The test command's other tool from PyPI: pre-commit, for the hooks' tests (and PyYAML in
  # its venv, for the CI templates' tests).
  "$here/tools/pre-commit-venv.sh" >/dev/null &
  pids+=("$!")
fi
# Waits for the venvs started above; exits with the first failure's status.
wait_others() {
  local failed=0 pid
  for pid in "${pids[@]}"; do
    wait "$pid" || failed=$?
  done
  if [ "$failed" -ne 0 ]; then
    echo "iree-venv.sh: making another venv failed (exit $failed); see above" >&2
    exit "$failed"
  fi
}

if [ -x "$venv/bin/iree-opt" ] && [ -f "$venv/.tunespec-iree-$version" ] \
  && [ -f "$venv/.tunespec-iree-runtime-$version" ]; then
  wait_others
  echo "$venv/bin/iree-opt"
  exit 0
fi
python=${PYTHON:-python3}
mkdir -p "$(dirname "$venv")"
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check \
  "iree-base-compiler==$version" "iree-base-runtime==$version" >&2
"$venv/bin/iree-opt" --version >/dev/null
"$venv/bin/iree-benchmark-module" --list_devices >/dev/null
touch "$venv/.tunespec-iree-$version" "$venv/.tunespec-iree-runtime-$version"
wait_others
echo "$venv/bin/iree-opt"
