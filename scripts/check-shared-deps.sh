#!/usr/bin/env bash
# Fails when `make test` would compile a dependency differently from
# `make build`. Both use the release profile so that the tree compiles once;
# that holds only while every crate the shipped binary uses is resolved with
# the same features when the tests' own dependencies join in. A test-only
# crate that turns on one more feature of a shared one (say, of the syn the
# proc-macros use) rebuilds that crate and everything above it: minutes.
# The fix goes in Cargo.toml, beside `stable_deref_trait`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Each crate once per feature set, as `package version (origin) features`.
tree() {
  cargo tree --locked --no-default-features --features ssr \
    -f '{p} {f}' --prefix none "$@" | sed 's/ (\*)$//' | sort -u
}

shipped=$(tree -p llmgw-console -e normal,build)
tested=$(tree --workspace -e normal,build,dev)
# Lines of the shipped tree that the tests' tree lacks: a shared crate whose
# features differ between the two.
drift=$(comm -23 <(printf '%s\n' "$shipped") <(printf '%s\n' "$tested"))
if [ -n "$drift" ]; then
  echo "check-shared-deps: these crates get other features under cargo test," >&2
  echo "so make test would compile them (and what depends on them) again:" >&2
  printf '  %s\n' "$drift" >&2
  echo "with the tests' dependencies they are:" >&2
  for name in $(printf '%s\n' "$drift" | cut -d' ' -f1 | sort -u); do
    printf '%s\n' "$tested" | grep "^$name " | sed 's/^/  /' >&2
  done
  exit 1
fi
echo "check-shared-deps: make build and make test share every dependency"
