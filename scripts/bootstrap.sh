#!/usr/bin/env bash
# Installs whatever building and testing the console needs and is missing:
# a Rust toolchain that can build wasm32, cargo-leptos, wasm-bindgen-cli at
# the version in Cargo.lock, wasm-opt, Chromium, and the npm packages.
#
# Safe to run again: every step first checks whether its tool already answers
# with the right version, and does nothing if so. A cold machine takes about
# half an hour, nearly all of it compiling cargo-leptos once.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

CARGO_LEPTOS_VERSION=0.3.11
say() { printf '\033[1mbootstrap:\033[0m %s\n' "$*"; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

apt_updated=0
apt_install() {
  command -v apt-get >/dev/null || {
    say "cannot install $* here (no apt-get); install it by hand"; exit 1; }
  if [ "$apt_updated" -eq 0 ]; then
    as_root apt-get update -qq
    apt_updated=1
  fi
  say "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >/dev/null
}

# 1. A compiler that can build for wasm32. Where rustup can add the target
#    (an ordinary laptop), that is all; where it cannot download (it hangs
#    rather than failing), Debian's Rust and its std source are used instead,
#    and std is built for wasm32 from that source.
has_rustup_wasm() {
  command -v rustup >/dev/null &&
    rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown
}
if has_rustup_wasm; then
  say "rustup has the wasm32 target"
elif [ ! -d /usr/lib/rustlib/src/rust/library ] && command -v rustup >/dev/null &&
     timeout 60 rustup target add wasm32-unknown-unknown >/dev/null 2>&1; then
  say "added the wasm32 target with rustup"
else
  need=()
  [ -x /usr/bin/rustc ] && /usr/bin/rustc --version | grep -q '^rustc 1\.9[6-9]' || need+=(rustc-web cargo-web)
  [ -d /usr/lib/rustlib/src/rust/library ] || need+=(rust-web-src)
  [ -e /usr/bin/rust-lld ] || need+=(lld-22)
  command -v /usr/bin/rustfmt >/dev/null || need+=(rustfmt-web)
  [ -x /usr/bin/cargo-clippy ] || need+=(rust-web-clippy)
  if [ "${#need[@]}" -gt 0 ]; then apt_install "${need[@]}"; fi
  say "using Debian's Rust for both halves: $(/usr/bin/rustc --version)"
fi

# Every cargo below runs with the toolchain chosen above.
run() { "$root/scripts/with-toolchain.sh" "$@"; }

# 2. Chromium for the end-to-end tests, and Node for Playwright.
if ! command -v chromium >/dev/null && [ ! -x /usr/bin/chromium ] && [ -z "${CHROMIUM_PATH:-}" ]; then
  apt_install chromium
fi
if ! command -v npm >/dev/null; then
  apt_install nodejs npm
fi

# 3. cargo-leptos, compiled once (25 minutes on two cores); `no_downloads`
#    makes it take wasm-bindgen and wasm-opt from PATH instead of fetching them.
if run cargo leptos --version 2>/dev/null | grep -q "$CARGO_LEPTOS_VERSION"; then
  say "cargo-leptos $CARGO_LEPTOS_VERSION is installed"
else
  say "installing cargo-leptos $CARGO_LEPTOS_VERSION (slow, once)"
  run cargo install cargo-leptos --version "$CARGO_LEPTOS_VERSION" --locked --features no_downloads
fi

# 4. wasm-bindgen-cli must match the wasm-bindgen crate exactly.
bindgen=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
if run wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $bindgen"; then
  say "wasm-bindgen-cli $bindgen is installed"
else
  say "installing wasm-bindgen-cli $bindgen"
  # Not --locked: the registry mirror has lacked one of its locked dependencies.
  run cargo install wasm-bindgen-cli --version "$bindgen"
fi

# 5. npm packages: wasm-opt (binaryen; Debian's is too old and emits modules
#    browsers reject) and Playwright. `npm ci` only when the lock file changed.
npm_ci() {
  local dir=$1
  if [ ! -f "$dir/node_modules/.package-lock.json" ] ||
     ! cmp -s "$dir/package-lock.json" "$dir/node_modules/.lock-stamp"; then
    say "npm ci in $dir"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
    cp "$dir/package-lock.json" "$dir/node_modules/.lock-stamp"
  fi
}
npm_ci tools
npm_ci end2end

say "ready"
