#!/usr/bin/env bash
# Shows that scripts/bootstrap.sh chooses the right Rust on each kind of
# machine, on this one machine: `make build` runs in a fresh clone of HEAD
# under each condition below, with a rustup home of its own, and the check
# is the bootstrap's own one-line choice plus a console that then serves the
# demo cluster.
#
#   present      rustup already has the pinned toolchain and wasm32: used as is
#   old-stable   rustup's default is 1.95, older than the pin: the pin is installed
#   no-download  rustup's server accepts and never answers, as on machines
#                where it hangs: the time limit ends it and Debian's Rust is used
#
# Usage: scripts/prove-bootstrap.sh [present|old-stable|no-download ...]
#        (all three by default). Keeps its work in $LLMGW_PROVE_DIR if set.
#
# Needs a rustup that can download (present, old-stable) and apt as root
# (no-download). wasm-bindgen-cli is shared with the machine's, so each
# condition costs one release build (about 12 minutes on two cores), and the
# Debian one builds in a clone of its own, since two compilers in one target/
# rebuild each other's work.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${LLMGW_PROVE_DIR:-$(mktemp -d)}
pin=$(sed -n 's/^channel *= *"\([^"]*\)".*/\1/p' "$root/rust-toolchain.toml")
conditions=("$@")
[ ${#conditions[@]} -gt 0 ] || conditions=(present old-stable no-download)
export RUSTUP_AUTO_INSTALL=0

say() { printf '\033[1mprove:\033[0m %s\n' "$*"; }

# A clone of HEAD; one kept from an earlier condition is moved to HEAD, so
# that its target/ (same compiler) is reused.
clone() {
  local dir=$work/$1
  if [ ! -d "$dir" ]; then
    git clone -q "$root" "$dir"
  else
    git -C "$dir" fetch -q "$root" HEAD && git -C "$dir" checkout -q --detach FETCH_HEAD
  fi
  rm -rf "$dir/target/toolchain" "$dir/target/release/llmgw-console"
  printf '%s' "$dir"
}

# A rustup home holding only the given toolchains, the first as default.
rustup_home() {
  local home=$work/rustup-$1
  shift
  rm -rf "$home"
  mkdir -p "$home"
  local toolchain
  for toolchain in "$@"; do
    RUSTUP_HOME=$home timeout 300 rustup toolchain install "$toolchain" --profile minimal --no-self-update \
      --component clippy --component rustfmt >/dev/null
  done
  if [ $# -gt 0 ]; then RUSTUP_HOME=$home rustup default "$1" >/dev/null; fi
  printf '%s' "$home"
}

# A server that accepts connections and never answers; prints its port.
black_hole() {
  local port_file=$work/black-hole.port
  rm -f "$port_file"
  python3 -c '
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
held = []
while True:
    held.append(s.accept()[0])
' "$port_file" &
  hole_pid=$!
  while [ ! -s "$port_file" ]; do sleep 0.1; done
  cat "$port_file"
}

# The built console serves the demo cluster's nodes page, started in its own
# clone, whose Leptos.toml it reads.
serves() {
  local bin=$1/target/release/llmgw-console log=$work/serve.log
  (cd "$1" && exec "$bin" --demo --listen 127.0.0.1:0 --log info 2>"$log") &
  local pid=$! url="" i
  for i in $(seq 50); do
    url=$(sed -n 's/.*open \(http:[^ ]*\).*/\1/p' "$log" | head -1)
    [ -n "$url" ] && break
    sleep 0.2
  done
  local ok=1
  # -L: the demo shows two clusters, and /nodes sends to the first one's.
  if [ -n "$url" ] && curl -fsSL "$url/nodes" | grep -q 'data-node='; then ok=0; fi
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  return "$ok"
}

# Runs `make build` in $1 with the environment after it; checks the choice.
prove() {
  local name=$1 dir=$2 expect=$3
  shift 3
  say "$name: make build (log: $work/$name.log)"
  local started=$SECONDS status=0
  (cd "$dir" && env "$@" make build) >"$work/$name.log" 2>&1 || status=$?
  local choice
  choice=$(grep -a 'bootstrap:.* rust:' "$work/$name.log" | sed 's/.*rust:/rust:/' | tail -1)
  if [ "$status" -ne 0 ]; then
    results+=("FAIL  $name: make build exited $status; see $work/$name.log")
  elif ! grep -aq "$expect" <<<"$choice"; then
    results+=("FAIL  $name: chose \"$choice\", expected /$expect/")
  elif ! serves "$dir"; then
    results+=("FAIL  $name: the built console did not serve its nodes page")
  else
    results+=("ok    $name ($((SECONDS - started)) s): $choice")
  fi
}

results=()
hole_pid=""
trap '[ -z "$hole_pid" ] || kill "$hole_pid" 2>/dev/null || true' EXIT

for condition in "${conditions[@]}"; do
  case $condition in
  present)
    home=$(rustup_home present "$pin")
    RUSTUP_HOME=$home timeout 300 rustup target add --toolchain "$pin" wasm32-unknown-unknown >/dev/null
    prove present "$(clone rustup)" "rustup's $pin .*already installed" RUSTUP_HOME="$home"
    ;;
  old-stable)
    home=$(rustup_home old 1.95)
    prove old-stable "$(clone rustup)" "installed rustup's $pin .*default is 1.95" RUSTUP_HOME="$home"
    ;;
  no-download)
    home=$(rustup_home none 1.95)
    black_hole >"$work/black-hole.out"
    port=$(cat "$work/black-hole.out")
    prove no-download "$(clone debian)" "Debian's .*rustup cannot provide $pin" \
      RUSTUP_HOME="$home" RUSTUP_DIST_SERVER="http://127.0.0.1:$port" \
      RUSTUP_UPDATE_ROOT="http://127.0.0.1:$port/rustup" LLMGW_RUSTUP_TIMEOUT=20
    ;;
  *)
    say "unknown condition: $condition (present, old-stable, no-download)"
    exit 2
    ;;
  esac
done

say "results, in $work:"
printf '  %s\n' "${results[@]}"
! printf '%s\n' "${results[@]}" | grep -q '^FAIL'
