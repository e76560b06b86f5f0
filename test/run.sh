#!/usr/bin/env bash
# `npm test`: installs what the suite needs, builds (tsc type-checks as it compiles), lints, runs ava
# (two passes: side by side, then test/serial-files.txt alone), and ends with one line `N passed, N failed`.
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

# Files run side by side (package.json's ava.concurrency): each owns its ports, temp dirs and daemons.
# Those in test/serial-files.txt measure what others running beside them would change: they run after,
# one at a time. Arguments (files, --match) run as given, in one pass.
if [ "$#" -gt 0 ]; then
  npx ava "$@" 2>&1 | tee .cache/ava-output.txt
  status=${PIPESTATUS[0]}
else
  mapfile -t serial < <(grep -Ev '^\s*(#|$)' test/serial-files.txt)
  for file in "${serial[@]}"; do
    if [ ! -f "$file" ]; then
      echo "test: $file, listed in test/serial-files.txt, does not exist"
      echo "0 passed, 1 failed"
      exit 1
    fi
  done
  mapfile -t side_by_side < <(find dist/test -name '*.test.js' | sort | grep -vxF -f test/serial-files.txt)
  npx ava "${side_by_side[@]}" 2>&1 | tee .cache/ava-output.txt
  status=${PIPESTATUS[0]}
  npx ava --concurrency 1 "${serial[@]}" 2>&1 | tee -a .cache/ava-output.txt
  serial_status=${PIPESTATUS[0]}
  if [ "$status" -eq 0 ]; then status=$serial_status; fi
fi
# One line a test in ava's report: ✔ passed, ✘ failed; ava's summary adds what no such line shows
# (uncaught exceptions, unhandled rejections), and skipped or todo tests count as failed here.
passed=$(grep -cE '^\s+✔' .cache/ava-output.txt)
failed=$(( $(grep -cE '^\s+✘' .cache/ava-output.txt) + $(grep -Eo '^ +[0-9]+ (uncaught exceptions?|unhandled rejections?|tests? skipped|tests? todo)' .cache/ava-output.txt | awk '{ sum += $1 } END { print sum + 0 }') ))
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "$passed passed, $failed failed"
exit "$status"
