#!/usr/bin/env bash
# Installs whatever building and testing the console needs and is missing,
# and records which Rust builds it (target/toolchain/) for
# scripts/with-toolchain.sh. Every tool is checked by its version; one that is
# present but wrong is replaced, never used.
#
# Quick when everything is there; safe to run again. Works as root (these
# build machines), as a user with sudo (apt is only asked for what is
# missing), and where there is no apt at all (a laptop).
#
# What it installs depends on what is asked of it, so that a first
# `make demo` waits for nothing it does not use:
#   scripts/bootstrap.sh [build]  Rust with wasm32, Node, wasm-bindgen-cli,
#                                 npm's build tools (make build, make demo)
#   scripts/bootstrap.sh test     and Playwright, Chromium, ChromeDriver
#   scripts/bootstrap.sh dev      and cargo-leptos (make dev; compiled once,
#                                 about 17 minutes on two cores)
#
# Settings, for scripts/prove-bootstrap.sh and unusual machines:
#   LLMGW_RUSTUP_TIMEOUT  seconds rustup may spend downloading (default 90).
#                         Where it cannot reach its server it hangs rather
#                         than failing, so it is never run without a limit.
#   CHROMIUM_PATH         a Chromium to test with, instead of finding one.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

purpose=${1:-build}
case $purpose in
build | test | dev) ;;
*)
  echo "usage: scripts/bootstrap.sh [build|test|dev]" >&2
  exit 2
  ;;
esac

CARGO_LEPTOS_VERSION=0.3.11
BINARYEN_MAJOR=132 # the version tools/package.json pins
NODE_MAJOR_MIN=18  # the oldest Node that Playwright runs on
WASM=wasm32-unknown-unknown
RUST_PIN=$(sed -n 's/^channel *= *"\([^"]*\)".*/\1/p' rust-toolchain.toml)
RUSTUP_TIMEOUT=${LLMGW_RUSTUP_TIMEOUT:-90}
CARGO_BIN=${CARGO_HOME:-$HOME/.cargo}/bin
STATE=target/toolchain
# Probing rustup must never start a download by itself.
export RUSTUP_AUTO_INSTALL=0

say() { printf '\033[1mbootstrap:\033[0m %s\n' "$*"; }
die() {
  say "$*" >&2
  exit 1
}

[ -n "$RUST_PIN" ] || die "rust-toolchain.toml names no channel"

# --- portable pieces -------------------------------------------------------

# True when dotted version $1 is at least $2 (sort -V is not everywhere).
version_ge() {
  local IFS=.
  local -a a=($1) b=($2)
  local i x y
  for i in 0 1 2; do
    x=${a[i]:-0} y=${b[i]:-0}
    if ((10#$x > 10#$y)); then return 0; fi
    if ((10#$x < 10#$y)); then return 1; fi
  done
  return 0
}

# `timeout` is GNU's; macOS has it only as gtimeout, if at all.
with_timeout() {
  local seconds=$1
  shift
  if command -v timeout >/dev/null; then
    timeout "$seconds" "$@"
  elif command -v gtimeout >/dev/null; then
    gtimeout "$seconds" "$@"
  else
    "$@" &
    local pid=$! status=0
    (sleep "$seconds" && kill "$pid" 2>/dev/null) &
    local watchdog=$!
    wait "$pid" || status=$?
    kill "$watchdog" 2>/dev/null || true
    return "$status"
  fi
}

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

apt_updated=0
apt_install() {
  if [ "$apt_updated" -eq 0 ]; then
    as_root apt-get update -qq
    apt_updated=1
  fi
  say "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >/dev/null
}

# The version number a rustc prints, or nothing.
rustc_version() {
  "$@" --version 2>/dev/null | sed -n 's/^rustc \([0-9][0-9.]*\).*/\1/p'
}

# --- 0. Room on disk -------------------------------------------------------

# A full disk stops cargo half-way with "No space left on device", minutes
# in; said first, the newcomer knows before waiting. The room asked for is
# what scripts/prove-first-run.sh measured (docs/building.md's "What a first run
# costs"), rounded up. A warning, not a stop: an incremental build needs
# far less.
room_gb=$(df -Pk . 2>/dev/null | awk 'NR == 2 { print int($4 / 1048576) }')
case $purpose in
build) room_needed=4 ;;
*) room_needed=6 ;;
esac
if [ -n "$room_gb" ] && [ "$room_gb" -lt "$room_needed" ] && [ ! -d target/release ]; then
  say "warning: $room_gb GB free here; a first build for '$purpose' needs about $room_needed GB (target/ and the toolchain) and may stop with \"No space left on device\""
fi

# --- 1. Rust: one compiler for the server, the WASM half and the tools -----

# rustup's toolchain pinned in rust-toolchain.toml, with what the build uses.
rustup_ready() {
  command -v rustup >/dev/null || return 1
  local targets components
  targets=$(rustup target list --installed --toolchain "$RUST_PIN" 2>/dev/null) || return 1
  components=$(rustup component list --installed --toolchain "$RUST_PIN" 2>/dev/null) || return 1
  grep -qx "$WASM" <<<"$targets" &&
    grep -q '^clippy' <<<"$components" && grep -q '^rustfmt' <<<"$components"
}

rustup_install_pin() {
  # Never rustup's self-update: the project installs a toolchain, it does not
  # replace the machine's rustup.
  with_timeout "$RUSTUP_TIMEOUT" rustup toolchain install "$RUST_PIN" --profile minimal --no-self-update \
    --component clippy --component rustfmt --target "$WASM" >/dev/null 2>&1 &&
    rustup_ready
}

# Debian's rustc-web: recent enough, with the std source that wasm32's std is
# built from (it has no prebuilt one) and the linker that target uses.
debian_ready() {
  local version
  version=$(rustc_version /usr/bin/rustc)
  [ -n "$version" ] && version_ge "$version" "$RUST_PIN" &&
    [ -x /usr/bin/cargo ] && [ -x /usr/bin/cargo-clippy ] && [ -x /usr/bin/rustfmt ] &&
    [ -d /usr/lib/rustlib/src/rust/library ] && [ -e /usr/bin/rust-lld ]
}

debian_install() {
  command -v apt-get >/dev/null || return 1
  local need=()
  local version
  version=$(rustc_version /usr/bin/rustc)
  if [ -z "$version" ] || ! version_ge "$version" "$RUST_PIN"; then need+=(rustc-web cargo-web); fi
  [ -d /usr/lib/rustlib/src/rust/library ] || need+=(rust-web-src)
  [ -e /usr/bin/rust-lld ] || need+=(lld-22)
  [ -x /usr/bin/rustfmt ] || need+=(rustfmt-web)
  [ -x /usr/bin/cargo-clippy ] || need+=(rust-web-clippy)
  if [ "${#need[@]}" -gt 0 ]; then apt_install "${need[@]}"; fi
  debian_ready
}

# A Rust on PATH that is not rustup's (a distribution's, a hand-built one)
# and already has the wasm32 standard library.
path_ready() {
  command -v rustup >/dev/null && return 1
  command -v cargo >/dev/null || return 1
  local version sysroot
  version=$(rustc_version rustc)
  sysroot=$(rustc --print sysroot 2>/dev/null) || return 1
  [ -n "$version" ] && version_ge "$version" "$RUST_PIN" &&
    [ -d "$sysroot/lib/rustlib/$WASM" ] &&
    cargo clippy --version >/dev/null 2>&1 && cargo fmt --version >/dev/null 2>&1
}

# Writes the choice for scripts/with-toolchain.sh. The Debian route links its
# compiler into a folder of its own, which goes first on PATH: putting all of
# /usr/bin first would also put Debian's wasm-opt or wasm-bindgen, if any,
# ahead of the right ones.
record() {
  local kind=$1 env
  rm -rf "$STATE/bin"
  mkdir -p "$STATE/bin"
  case $kind in
  rustup) env=$(printf 'LLMGW_TOOLCHAIN=rustup\nRUSTUP_TOOLCHAIN=%s\nLLMGW_WASM_STD_ARGS=' "$RUST_PIN") ;;
  debian)
    local tool
    for tool in cargo rustc rustdoc rustfmt cargo-fmt cargo-clippy clippy-driver; do
      if [ -e "/usr/bin/$tool" ]; then ln -s "/usr/bin/$tool" "$STATE/bin/$tool"; fi
    done
    env=$(printf 'LLMGW_TOOLCHAIN=debian\nRUSTUP_TOOLCHAIN=\nLLMGW_WASM_STD_ARGS=-Zbuild-std=std,panic_abort')
    ;;
  path) env=$(printf 'LLMGW_TOOLCHAIN=path\nRUSTUP_TOOLCHAIN=\nLLMGW_WASM_STD_ARGS=') ;;
  esac
  # Rewritten only when the choice changed, so its date says when it did.
  if [ "$(cat "$STATE/env" 2>/dev/null)" != "$env" ]; then
    printf '%s\n' "$env" >"$STATE/env"
  fi
}

previous=$(sed -n 's/^LLMGW_TOOLCHAIN=//p' "$STATE/env" 2>/dev/null || true)
# rustup's default, read outside this folder so rust-toolchain.toml is not it.
default_rust=$(cd / && command -v rustup >/dev/null && rustc_version rustc || true)

if rustup_ready; then
  record rustup
  say "rust: rustup's $RUST_PIN with $WASM (pinned in rust-toolchain.toml; already installed)"
elif [ "$previous" = debian ] && debian_ready; then
  record debian
  say "rust: Debian's $(rustc_version /usr/bin/rustc), building std for $WASM (chosen before, when rustup could not download; complete)"
elif command -v rustup >/dev/null && rustup_install_pin; then
  record rustup
  say "rust: installed rustup's $RUST_PIN with $WASM (pinned in rust-toolchain.toml; rustup's default is ${default_rust:-none})"
else
  if command -v rustup >/dev/null; then
    say "rust: rustup could not install $RUST_PIN within ${RUSTUP_TIMEOUT}s (no download); trying Debian's Rust"
  fi
  if path_ready; then
    record path
    say "rust: $(rustc --version) from PATH, with $WASM (no rustup here)"
  elif debian_install; then
    record debian
    say "rust: Debian's $(rustc_version /usr/bin/rustc), building std for $WASM from its source (rustup cannot provide $RUST_PIN here)"
  else
    die "rust: no Rust $RUST_PIN or later with $WASM can be had here: install rustup, or on Debian run this as root"
  fi
fi

# Every command below runs with the Rust chosen above.
run() { "$root/scripts/with-toolchain.sh" "$@"; }

# --- 2. Node, for Playwright and wasm-opt -----------------------------------

node_major=$(node --version 2>/dev/null | sed -n 's/^v\([0-9]*\).*/\1/p')
if [ -z "$node_major" ] || [ "$node_major" -lt "$NODE_MAJOR_MIN" ] || ! command -v npm >/dev/null; then
  command -v apt-get >/dev/null || die "node: Node.js $NODE_MAJOR_MIN or later with npm is needed"
  apt_install nodejs npm
fi

# --- 3. cargo-leptos, for `make dev` only (about 17 minutes on two cores) ---
# `cargo leptos watch` rebuilds and reloads on a save; `make build` does the
# same steps with tools that install in seconds (scripts/build.mjs).
# `no_downloads` makes it take wasm-bindgen and wasm-opt from PATH instead of
# fetching its own, which cannot work on a closed network.

if [ "$purpose" = dev ]; then
  if run cargo leptos --version 2>/dev/null | grep -qx "cargo-leptos $CARGO_LEPTOS_VERSION"; then
    say "cargo-leptos $CARGO_LEPTOS_VERSION is installed"
  else
    say "installing cargo-leptos $CARGO_LEPTOS_VERSION for make dev (once; about 17 minutes on two cores)"
    run cargo install cargo-leptos --version "$CARGO_LEPTOS_VERSION" --locked --force \
      --features no_downloads
  fi
fi

# --- 4. wasm-bindgen-cli, exactly the wasm-bindgen crate's version ----------

bindgen=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
if run wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $bindgen"; then
  say "wasm-bindgen-cli $bindgen is installed"
else
  say "installing wasm-bindgen-cli $bindgen (once; under a minute on two cores)"
  # Not --locked: the registry mirror has lacked one of its locked dependencies.
  # A debug build without debug info: it compiles in 45 s where a release
  # build takes 3 to 5 minutes, and its output is byte for byte the same; it
  # works on the console's module in half a second (0.1 s optimised) and
  # adds 3 s to `make unit-browser`.
  run env CARGO_PROFILE_DEV_DEBUG=0 cargo install wasm-bindgen-cli --version "$bindgen" --force --debug
fi

# --- 5. npm packages: the build's tools, and Playwright for the tests -------
# tools/: wasm-opt (binaryen; Debian's is too old and emits modules browsers
# reject), esbuild and Lightning CSS, all prebuilt, so they install in
# seconds. `npm ci` only when the lock file changed since the last one.

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
if [ "$purpose" = test ]; then npm_ci end2end; fi
run wasm-opt --version 2>/dev/null | grep -Eq "version $BINARYEN_MAJOR([^0-9]|\$)" ||
  die "wasm-opt: $(command -v wasm-opt || echo none) is not binaryen $BINARYEN_MAJOR"

if [ "$purpose" != test ]; then
  say "ready to $purpose"
  exit 0
fi

# --- 6. Chromium for the end-to-end tests -----------------------------------
# Debian's where there is apt (Playwright cannot download its own on a closed
# network); Playwright's own elsewhere. end2end/tests/support.ts picks the same.

if [ -n "${CHROMIUM_PATH:-}" ]; then
  "$CHROMIUM_PATH" --version >/dev/null 2>&1 || die "chromium: CHROMIUM_PATH=$CHROMIUM_PATH does not run"
elif [ -x /usr/bin/chromium ]; then
  :
elif command -v apt-get >/dev/null; then
  apt_install chromium
else
  say "chromium: none from the system; using Playwright's own"
  (cd end2end && npx playwright install chromium)
fi

# --- 7. ChromeDriver for the browser-side unit tests (make unit-browser) -----
# wasm-bindgen-test drives Chromium through it; Debian's matches Debian's
# Chromium. Elsewhere, name one that matches the Chromium in CHROMEDRIVER.

if [ -n "${CHROMEDRIVER:-}" ]; then
  "$CHROMEDRIVER" --version >/dev/null 2>&1 || die "chromedriver: CHROMEDRIVER=$CHROMEDRIVER does not run"
elif command -v chromedriver >/dev/null; then
  :
elif command -v apt-get >/dev/null; then
  apt_install chromium-driver
else
  die "chromedriver: none found; install the ChromeDriver of your Chromium and set CHROMEDRIVER to it"
fi

# A service a package started: the tests run servers of their own.
stop_service() {
  if command -v systemctl >/dev/null && systemctl is-active --quiet "$1" 2>/dev/null; then
    say "stopping the $1 service the package started (the tests run their own)"
    as_root systemctl disable --now "$1" >/dev/null 2>&1 || true
  fi
}

# --- 8. Prometheus for the metrics tests -------------------------------------
# `promtool` checks what /metrics writes and the shipped alert rules, and a
# real Prometheus server scrapes a console (tests/api/metrics.rs). Debian's
# package; its service is not started (the tests start their own server).

if ! command -v promtool >/dev/null || ! command -v prometheus >/dev/null; then
  command -v apt-get >/dev/null ||
    die "prometheus: install Prometheus (prometheus and promtool on PATH) for the metrics tests"
  apt_install --no-install-recommends prometheus
  # Debian starts it as a service on :9090, the admin API's usual port;
  # the tests need only the programs.
  stop_service prometheus
fi

# --- 9. PostgreSQL for the journal tests --------------------------------------
# The journal's tests run against a real PostgreSQL server that they start
# themselves (initdb in a temporary directory, a free loopback port):
# Debian's package gives the programs. Its own cluster is not needed.

if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null; then
  command -v apt-get >/dev/null ||
    die "postgresql: install PostgreSQL's server programs (initdb, postgres) on PATH for the journal tests"
  apt_install --no-install-recommends postgresql
  stop_service postgresql
fi

# --- 10. Network namespaces for the journal's partition test ------------------
# One test puts its PostgreSQL server in a network namespace of its own and
# cuts the link to it (`ip`, iproute2's; `setpriv`, util-linux's, is in
# every Debian), so that only TCP's keepalives end a session across it.

if ! command -v ip >/dev/null; then
  command -v apt-get >/dev/null ||
    die "iproute2: install it (the ip command) for the journal's partition test"
  apt_install --no-install-recommends iproute2
fi

say "ready to test"
