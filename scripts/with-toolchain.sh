#!/usr/bin/env bash
# Runs a command with the toolchain scripts/bootstrap.sh set up, so that one
# compiler builds both halves (mixing two in one target/ makes each rebuild
# the other's artifacts) and the npm-installed wasm-opt is found.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

export PATH="$root/tools/node_modules/.bin:$HOME/.cargo/bin:$PATH"
if command -v rustup >/dev/null &&
   rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  export LLMGW_WASM_STD_ARGS=""
else
  # Debian's Rust has no prebuilt std for wasm32: build it from source, which
  # needs the unstable -Zbuild-std. Set for every build, server included, so
  # build scripts see the same environment each time and nothing rebuilds.
  export PATH="/usr/bin:$PATH"
  export RUSTC_BOOTSTRAP=1
  export LLMGW_WASM_STD_ARGS="-Zbuild-std=std,panic_abort"
fi
# Leptos reads this at compile time; cargo-leptos sets the same value, and
# giving it to plain cargo too keeps cargo test from rebuilding Leptos.
export LEPTOS_OUTPUT_NAME=llmgw-console
exec "$@"
