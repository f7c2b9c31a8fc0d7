#!/usr/bin/env bash
# Installs every system package tunespec needs to build and test, idempotently.
#
# Why a script: nothing installed by hand survives to the next machine. This is the single place
# that knows the Debian package names (see README.md, "Install"). It is quiet and quick
# when everything is already installed (one dpkg query, no apt-get call).
set -euo pipefail

packages=(
  # MLIR 22 for melior 0.27 / mlir-sys 220
  llvm-22-dev libmlir-22-dev mlir-22-tools libclang-22-dev libclang-common-22-dev
  # llvm-config lists these as link dependencies even though tunespec does not use them
  libpolly-22-dev libz3-dev libxml2-dev libzstd-dev zlib1g-dev
  # C toolchain for build scripts and the C export test
  build-essential pkg-config
  # the CMake snippet of docs/embedding.md for using the export in a compiler build is built in a test
  cmake
  # the reference Python for the iree-base-compiler venv (tools/iree-venv.sh)
  python3-venv
  # memory-error hunting (valgrind found issue 15's null-operand crash); strip debug info first
  # (`strip -g`): valgrind 3.19 cannot read Rust's DWARF 5
  valgrind
  # the shared store's tests start a Redis server of their own on a loopback port
  # (tests/all/store.rs); it is not run as a service
  redis-server
  # the TLS store's test (rediss://) makes its server's certificate
  openssl
)
# The object-store emulators of the store's tests (tools/store-servers.sh): moto from PyPI (in
# python3-venv's venv) and Azurite from the npm registry, which needs Node.js and npm; a machine
# that has them from elsewhere (NodeSource's nodejs bundles npm) keeps its own.
if ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq >/dev/null
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

for tool in /usr/lib/llvm-22/bin/mlir-opt /usr/lib/llvm-22/bin/llvm-config; do
  if [ ! -x "$tool" ]; then
    echo "setup: $tool is missing after install" >&2
    exit 1
  fi
done
