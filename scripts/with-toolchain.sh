#!/usr/bin/env bash
# Runs a command with the Rust that scripts/bootstrap.sh chose, so that one
# compiler builds both halves (two in one target/ make each rebuild the
# other's artifacts), and the project's wasm-opt and wasm-bindgen come first.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
state=$root/target/toolchain

if [ ! -f "$state/env" ]; then
  echo "with-toolchain: no toolchain chosen yet; run scripts/bootstrap.sh (make setup)" >&2
  exit 1
fi
# shellcheck source=/dev/null
. "$state/env"

export PATH="$state/bin:$root/tools/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
export LLMGW_WASM_STD_ARGS
case $LLMGW_TOOLCHAIN in
rustup) export RUSTUP_TOOLCHAIN ;;
# Debian's Rust has no prebuilt std for wasm32, so it is built from source
# with the unstable -Zbuild-std. Set for every build, server included, so
# build scripts see the same environment each time and nothing rebuilds.
debian) export RUSTC_BOOTSTRAP=1 ;;
esac
# Leptos reads this at compile time; cargo-leptos sets the same value, and
# giving it to plain cargo too keeps cargo test from rebuilding Leptos.
export LEPTOS_OUTPUT_NAME=llmgw-console
# The journal's SQLite, compiled in: without the full-text search, R-tree,
# statistics and soundex modules it will never use (about 0.5 MB of the
# binary). Set for every build, so nothing rebuilds between them.
export LIBSQLITE3_FLAGS="-USQLITE_ENABLE_FTS3 -USQLITE_ENABLE_FTS3_PARENTHESIS -USQLITE_ENABLE_FTS5 -USQLITE_ENABLE_RTREE -USQLITE_ENABLE_DBSTAT_VTAB -USQLITE_ENABLE_STAT4 -USQLITE_SOUNDEX"
exec "$@"
