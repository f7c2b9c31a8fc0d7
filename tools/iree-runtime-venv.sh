#!/usr/bin/env bash
# Creates (idempotently) a venv holding IREE's runtime alone (iree-base-runtime, about 15 MB:
# no compiler), pinned to a release: what a GPU machine of a bench plan's time phase carries
# (`tunespec time`). The tests time plans in it to prove that the time phase never needs the
# compiler. Prints the venv's path on success.
#
#   tools/iree-runtime-venv.sh           3.13.0 in target/iree-runtime-venv-3.13.0
#   tools/iree-runtime-venv.sh 3.12.0    another release
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
version=${1:-3.13.0}
venv=$here/target/iree-runtime-venv-$version
if [ -f "$venv/.tunespec-iree-runtime-$version" ] \
  && [ -x "$venv/bin/iree-benchmark-module" ]; then
  echo "$venv"
  exit 0
fi
python=${PYTHON:-python3}
mkdir -p "$(dirname "$venv")"
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check \
  "iree-base-runtime==$version" >&2
"$venv/bin/iree-benchmark-module" --list_devices >/dev/null
# A runtime-only venv indeed: the compiler is not importable from it.
if "$venv/bin/python" -c "import iree.compiler" 2>/dev/null; then
  echo "error: $venv can import iree.compiler; it should hold the runtime alone" >&2
  exit 1
fi
touch "$venv/.tunespec-iree-runtime-$version"
echo "$venv"
