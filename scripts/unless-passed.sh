#!/usr/bin/env bash
# Runs a test step unless it already passed on exactly these sources with
# exactly these tools, the way cargo skips a compile whose inputs did not
# change. `make test` runs its slow steps through this, so that a second
# `make test` with nothing changed takes seconds instead of ten minutes;
# `make test FRESH=1`, or a step's own target (`make unit`, `make e2e`), runs
# them anyway. A fresh clone (CI) has no record, so it runs everything.
#
# Usage: scripts/unless-passed.sh STEP COMMAND [ARG...]
#
# What the record is keyed on: the step and its command line, the content
# and mode of every file git would commit (tracked or new, not ignored;
# deleted ones by name), the settings that choose a toolchain, a browser or
# a PostgreSQL (LLMGW_*, CHROMIUM_PATH, PLAYWRIGHT_*, RUST*, CARGO*), the
# toolchain bootstrap chose, the compiler, Node, the Debian packages the
# tests drive (Chromium, ChromeDriver, PostgreSQL), Playwright's own
# browsers, and the shipped binary. Anything else a test reads (the
# network, the clock) is not, which is why the skip says when the pass
# was, and FRESH=1 exists. A pass is recorded only if that key is the same
# after the run as before it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
step=$1
shift
record=target/passed/$step

# Not a git checkout (a tarball): nothing to key on, so always run.
if ! git rev-parse --git-dir >/dev/null 2>&1; then
  exec "$@"
fi

key() {
  printf 'step %s\ncommand %s\n' "$step" "$*"
  # New files count, ignored ones do not; a deleted file counts by its
  # name, a file's mode with its content.
  git ls-files -z -co --exclude-standard >"$listing" || return 1
  while IFS= read -r -d '' f; do
    if [ -e "$f" ]; then
      sha256sum -- "$f" || return 1
      stat -c '%a' -- "$f"
    else
      printf 'deleted %s\n' "$f"
    fi
  done <"$listing"
  # The settings that choose what is built and what the tests drive: the
  # toolchain, the PostgreSQL and Chromium the tests use, and the like.
  env | grep -E '^(LLMGW_|CHROMIUM_PATH|PLAYWRIGHT_|RUST|CARGO|WASM_BINDGEN_)' | sort
  cat target/toolchain/env 2>/dev/null || true
  rustc -vV 2>/dev/null || true
  node --version 2>/dev/null || true
  dpkg-query -W -f '${Package} ${Version}\n' chromium chromium-driver 'postgresql-[0-9]*' 2>/dev/null || true
  ls "${PLAYWRIGHT_BROWSERS_PATH:-$HOME/.cache/ms-playwright}" 2>/dev/null || true
  bin=${BIN:-target/release/llmgw-console}
  if [ -f "$bin" ]; then sha256sum "$bin"; fi
}
listing=$(mktemp)
trap 'rm -f "$listing"' EXIT
# A key that cannot be worked out is no key: the step runs.
hash_of() { local k; k=$(key "$@") && printf '%s' "$k" | sha256sum | cut -d' ' -f1; }
now=$(hash_of "$@") || now=

if [ -z "${FRESH:-}" ] && [ -n "$now" ] && [ -f "$record" ] && [ "$(sed -n 1p "$record")" = "$now" ]; then
  echo "$step: passed $(sed -n 2p "$record") on these same sources and tools; not run again (make test FRESH=1 runs it)"
  exit 0
fi

rm -f "$record"
started=$(date +%s)
"$@"
took=$(($(date +%s) - started))
# Kept only when nothing changed while it ran: an edit made meanwhile, and
# then undone, would otherwise stand as tested.
if [ -n "$now" ] && [ "$(hash_of "$@" || true)" = "$now" ]; then
  mkdir -p target/passed
  printf '%s\n%s\n' "$now" "at $(date '+%Y-%m-%d %H:%M') in $took s" >"$record"
fi
