#!/usr/bin/env bash
# `npm test`: installs what the suite needs, builds (tsc type-checks as it compiles), lints, runs ava,
# and ends with one line `N passed, N failed`.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .cache

step() {
  local name=$1
  shift
  if ! "$@"; then
    echo "test: $name failed"
    echo "0 passed, 1 failed"
    exit 1
  fi
}

step "installing Debian packages" bash test/system-deps.sh test
step "installing Node 22" bash test/node22.sh
step "build" npm run --silent build
step "type-check" npm run --silent typecheck
step "lint" npm run --silent lint

npx ava "$@" 2>&1 | tee .cache/ava-output.txt
status=${PIPESTATUS[0]}
# One line a test in ava's report: ✔ passed, ✘ failed; ava's summary adds what no such line shows
# (uncaught exceptions, unhandled rejections), and skipped or todo tests count as failed here.
passed=$(grep -cE '^\s+✔' .cache/ava-output.txt)
failed=$(( $(grep -cE '^\s+✘' .cache/ava-output.txt) + $(grep -Eo '^ +[0-9]+ (uncaught exceptions?|unhandled rejections?|tests? skipped|tests? todo)' .cache/ava-output.txt | awk '{ sum += $1 } END { print sum + 0 }') ))
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "$passed passed, $failed failed"
exit "$status"
