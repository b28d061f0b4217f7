# The two commands of the README, and the steps they are made of. Every step
# installs what it needs first (scripts/bootstrap.sh), and is quick when all
# of it is there.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
RUN := ./scripts/with-toolchain.sh
# The shipped binary's profile, as Cargo.toml's build settings name it.
PROFILE := $(shell sed -n 's/^bin-profile-release *= *"\(.*\)"/\1/p' Cargo.toml)
BIN := target/$(PROFILE)/llmgw-console

.PHONY: demo dev test setup setup-test setup-dev build lint fmt unit unit-browser sizes e2e bench clean

## demo: build everything and run the console on the built-in demo cluster
demo: build
	@echo "llmgw-console: open http://127.0.0.1:8080 (demo cluster; Ctrl-C stops it)"
	$(BIN) --demo

## dev: rebuild on every save and reload the browser (debug build, demo cluster)
dev: setup-dev
	LLMGW_CONSOLE_DEMO=true $(RUN) bash -c 'cargo leptos watch $(LIB_ARGS)'

## test: formatting, lints for both halves, every test, the sizes, and the end-to-end suite
test: setup-test lint build unit unit-browser sizes e2e

# Under `make test`, the slow steps are skipped when they already passed on
# these same sources and tools (scripts/unless-passed.sh says what counts);
# `make test FRESH=1`, or a step's own target (`make unit`), runs them anyway.
test: ONCE = BIN=$(BIN) $(RUN) ./scripts/unless-passed.sh $@

# What each command needs, and nothing more (scripts/bootstrap.sh).
setup:
	./scripts/bootstrap.sh build
setup-test:
	./scripts/bootstrap.sh test
setup-dev:
	./scripts/bootstrap.sh dev

## build: the release binary, with the site embedded and precompressed
# Run every time, not only when a source is newer: it takes seconds when
# nothing changed, and the site it writes may have been replaced since
# (`make dev` writes a debug build of it into the same folder).
build: setup
	$(RUN) node scripts/build.mjs

# The WASM half's extra cargo arguments (build-std on Debian's Rust), given
# only when there are any: an empty --lib-cargo-args makes cargo fail.
LIB_ARGS := $${LLMGW_WASM_STD_ARGS:+--lib-cargo-args="$$LLMGW_WASM_STD_ARGS"}

lint: setup
	$(RUN) cargo fmt --all --check
	$(RUN) scripts/check-shared-deps.sh
	$(RUN) cargo clippy --workspace --all-targets --features ssr -- -D warnings
	$(RUN) bash -c 'cargo clippy --workspace --lib --features hydrate --target wasm32-unknown-unknown $$LLMGW_WASM_STD_ARGS -- -D warnings'

fmt: setup
	$(RUN) cargo fmt --all

## unit: unit and integration tests, in the shipped binary's profile so that
## they reuse every dependency `make build` compiled
## (scripts/check-shared-deps.sh)
unit: build
	$(ONCE) $(RUN) cargo test --release --workspace --features ssr

## unit-browser: the browser-side tests (the live document's morph) in
## headless Chromium, through wasm-bindgen-test and ChromeDriver
unit-browser: setup-test
	CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
	WASM_BINDGEN_TEST_WEBDRIVER_JSON=$(CURDIR)/app/tests/webdriver.json \
	$(ONCE) $(RUN) bash -c 'cargo test -p app --test morph --features hydrate --target wasm32-unknown-unknown $$LLMGW_WASM_STD_ARGS'

## sizes: fails when the binary, the WASM or a first load grew past what the
## tests hold them to (scripts/bench.mjs, HELD)
sizes: setup-test build
	node scripts/bench.mjs sizes --check

## e2e: Playwright against the release binary in headless Chromium: the
## pages without JavaScript and with it side by side, each project with a
## simulator and a console of its own (end2end/playwright.config.ts); one
## alone: make e2e PROJECTS=js
PROJECTS := no-js js
e2e: setup-test build
	$(ONCE) ./scripts/e2e.sh $(PROJECTS)

## bench: every figure of the console beside its budget (scripts/bench.mjs;
## one part alone: make bench PART=sizes)
bench: setup-test build
	node scripts/bench.mjs $(PART)

clean:
	rm -rf target end2end/test-results
