#!/usr/bin/env bash
# Creates (idempotently) a Python venv holding the pre-commit framework from PyPI, pinned, for
# the tests of the repository's `.pre-commit-hooks.yaml` (tests/all/precommit.rs runs
# `pre-commit try-repo` with it). Prints the path of the pre-commit program on success.
#
#   tools/pre-commit-venv.sh      in $TUNESPEC_PRE_COMMIT_VENV, default target/pre-commit-venv
#
# Why a venv under target/: per checkout, removed by `cargo clean`, never the system Python's.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
version=4.7.0
venv=${TUNESPEC_PRE_COMMIT_VENV:-$here/target/pre-commit-venv}
if [ -x "$venv/bin/pre-commit" ] && [ -f "$venv/.tunespec-pre-commit-$version" ]; then
  echo "$venv/bin/pre-commit"
  exit 0
fi
python=${PYTHON:-python3}
mkdir -p "$(dirname "$venv")"
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check "pre-commit==$version" >&2
"$venv/bin/pre-commit" --version >/dev/null
touch "$venv/.tunespec-pre-commit-$version"
echo "$venv/bin/pre-commit"
