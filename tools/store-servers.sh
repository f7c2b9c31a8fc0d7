#!/usr/bin/env bash
# Installs (idempotently) the object-store servers the shared store's tests run against, under
# target/store-servers/: moto's S3 server (PyPI, in a venv of its own) and Azurite's Blob
# server (the npm registry, with the machine's Node.js). Prints the directory.
#
# Why these two: each is the engine's own reference emulator for tests (moto for S3, Azurite is
# Microsoft's), both honour the conditional writes the store relies on (If-None-Match: * and
# If-Match), and both install from a registry in seconds; the tests start each on a free
# loopback port of their own and stop it after (tests/all/store/engines.rs). Pinned, so that a
# new release never changes what CI tests against unseen.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${CARGO_TARGET_DIR:-$here/target}/store-servers
moto_version=5.2.5
azurite_version=3.35.0

moto=$dir/moto
if [ "$(cat "$moto/.installed" 2>/dev/null)" != "$moto_version" ]; then
  rm -rf "$moto"
  python3 -m venv "$moto"
  "$moto/bin/pip" install --quiet --disable-pip-version-check "moto[server]==$moto_version"
  echo "$moto_version" > "$moto/.installed"
fi

azurite=$dir/azurite
if [ "$(cat "$azurite/.installed" 2>/dev/null)" != "$azurite_version" ]; then
  if ! command -v npm >/dev/null; then
    echo "store-servers: npm is missing (tools/setup.sh installs it)" >&2
    exit 1
  fi
  rm -rf "$azurite"
  mkdir -p "$azurite"
  npm install --prefix "$azurite" --silent --no-audit --no-fund --no-save "azurite@$azurite_version" >/dev/null
  echo "$azurite_version" > "$azurite/.installed"
fi
echo "$dir"
