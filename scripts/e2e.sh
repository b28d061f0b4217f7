#!/usr/bin/env bash
# The end-to-end suite: one Playwright per project, side by side, each with a
# simulator and a console of its own (end2end/playwright.config.ts reads
# LLMGW_E2E_PROJECT), each line of output prefixed with its project.
# Fails when either run fails, after both have finished.
#
# Usage: scripts/e2e.sh PROJECT... (make e2e passes no-js js)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../end2end"
[ $# -gt 0 ] || { echo "usage: scripts/e2e.sh PROJECT..." >&2; exit 2; }
pids=()
for project in "$@"; do
  (LLMGW_E2E_PROJECT=$project npx playwright test 2>&1 | sed -u "s/^/$project: /") &
  pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
exit $failed
