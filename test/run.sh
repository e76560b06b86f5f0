#!/usr/bin/env bash
# `npm test`: installs what the suite needs, builds (tsc type-checks as it compiles), then runs ava in
# two passes (side by side, then test/serial-files.txt alone) while the lint, the page type-check, the
# unit groups (these three at nice 19) and test/background-files.txt run beside the first pass, and ends with
# one line `N passed, N failed`.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .cache

# CPU seconds (user + system) that the ended children of shell $1 used: /proc's cutime and cstime,
# which count every process a child waited for (ava's workers, the daemons tests start, eslint).
children_cpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%d", ($16 + $17) / hz }' "/proc/$1/stat"; }

# Each step says how long it took and the CPU it used, so a slow suite shows where its time goes and
# whether it waited or was short of cores (CPU near cores x seconds).
step() {
  local name=$1 started=$SECONDS cpu_before
  cpu_before=$(children_cpu $$)
  shift
  if ! "$@"; then
    echo "test: $name failed"
    echo "0 passed, 1 failed"
    exit 1
  fi
  echo "test: $name took $((SECONDS - started)) s (CPU $(($(children_cpu $$) - cpu_before)) s)"
}

# The load the machine had, said at each pass's start and end: a shared machine's load inflates times.
load() { echo "test: load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores $1"; }

# The checks that need only the sources: run beside the side-by-side pass, their output kept in a
# file and printed after it; one that fails fails the run. The build's tsc has already type-checked
# tsconfig.json's project (`npm run typecheck` checks it again for people who do not build): what it
# leaves unchecked is ui/, which esbuild bundles without checking types.
checks() {
  # $BASHPID read here, in this background shell: inside $(...) it would name that subshell.
  local started=$SECONDS failed=0 me=$BASHPID lint_started lint_cpu_before
  # These are tools, not the product under test: they run on the Node 22 that test/install-node.sh
  # installed, where the lint took 67 CPU s against 83 on Node 20 (both on this machine, one after
  # the other). The product and its tests stay on the system's Node.
  local PATH=$PWD/.cache/node22/node_modules/node/bin:$PATH
  # At the lowest priority (nice 19), for this background shell and what it starts: the pass beside
  # it is bound by the 2 cores, so a test that wants a core gets it before the checks do. They still
  # end long before the pass (some 240-340 s of its 750-800 on the 2-core machine); the serial pass
  # waits for them.
  renice -n 19 -p "$me" > /dev/null
  npm run --silent format:check > /dev/null 2>&1 || { echo "test: files are not formatted: npm run format:check lists them, npm run format fixes them"; failed=1; }
  npm run --silent typecheck:ui || { echo "test: type-check of ui/ failed"; failed=1; }
  lint_started=$SECONDS
  lint_cpu_before=$(children_cpu "$me")
  npm run --silent lint || { echo "test: lint failed"; failed=1; }
  echo "test: lint took $((SECONDS - lint_started)) s (CPU $(($(children_cpu "$me") - lint_cpu_before)) s)"
  echo "test: type-check of ui/ and lint took $((SECONDS - started)) s (CPU $(children_cpu "$me") s)"
  return "$failed"
}

step "installing Debian packages" bash test/system-deps.sh test
step "installing Node 22" bash test/install-node.sh 22
step "installing Node 24" bash test/install-node.sh 24
# `npm install` has just built (package.json's prepare): the build is made again only when a source
# changed after the last complete one, whose last step touches dist/.built.
if [ -f dist/.built ] && [ -z "$(find src actors bin test benchmarks ui package.json package-lock.json tsconfig.json -newer dist/.built -print -quit)" ]; then
  echo "test: build skipped: no source changed since dist/ was built"
else
  step "build" npm run --silent build
fi

# The compiled test files a list names (one path a line, # comments); a path that names no file fails
# the run, so a renamed test cannot leave its list without a word.
listed_files() {
  local file
  while read -r file; do
    if [ ! -f "$file" ]; then
      echo "test: $file, listed in $1, does not exist" >&2
      return 1
    fi
    echo "$file"
  done < <(grep -Ev '^\s*(#|$)' "$1")
}

if [ "$#" -eq 0 ]; then
  if ! serial_list=$(listed_files test/serial-files.txt) || ! own_process_list=$(listed_files test/own-process-files.txt) || ! first_list=$(listed_files test/first-files.txt) || ! background_list=$(listed_files test/background-files.txt); then
    echo "0 passed, 1 failed"
    exit 1
  fi
  mapfile -t serial <<< "$serial_list"
  mapfile -t background <<< "$background_list"
  # The unit files share a few workers, but for those test/own-process-files.txt keeps apart: each
  # group is a module that imports its files (ava declares their tests as one file's), the files
  # dealt round-robin. All in one worker held its loop for 20 s at a time and a 2 s deadline of a
  # test in it was missed; a group of about a dozen files is a file of ordinary size. The groups are
  # written beside the compiled tests (so ava titles them `unit-groups › unit-tests-N › …`), and
  # their names do not end in .test.js, so a plain `npx ava` runs each unit file once, on its own.
  find dist/test -path '*/unit/*.test.js' | sort | grep -vxF -e "$own_process_list" > .cache/shared-unit-files.txt
  rm -rf dist/test/unit-groups
  mkdir -p dist/test/unit-groups
  awk -v groups=6 '{ sub(/^dist\/test\//, ""); printf "import '\''../%s'\'';\n", $0 > ("dist/test/unit-groups/unit-tests-" (NR - 1) % groups + 1 ".js") }' .cache/shared-unit-files.txt
fi

# How fast the machine is before the tests start (benchmarks/measure/machine-speed.ts): on this
# sandboxed machine the same suite's CPU moved by 15% between runs an hour apart, with the machine.
echo "test: the machine now: $(node dist/benchmarks/measure/machine-speed.js)"

# Each worker appends its file's wall time and CPU to .cache/file-times.txt (test/helpers/file-times.ts).
export OUTPOST_TEST_FILE_TIMES=$PWD/.cache/file-times.txt
rm -f "$OUTPOST_TEST_FILE_TIMES"
file_times=--node-arguments=--import=$PWD/dist/test/helpers/file-times.js

# The unit groups need only CPU: no daemon, no port, no wall-clock deadline (the files that have one
# are in test/own-process-files.txt and run in the pass). They run beside the pass at nice 19 once
# the checks have ended, so they use the cores only when the pass leaves them idle: the pass's first
# half keeps both cores busy with the checks beside it, its second half has files that wait (for a
# certificate, a shaped link, a restart's backoff) and leaves up to a third of the machine idle at
# times. ava's inactivity timeout is raised because, at nice 19, a group can wait minutes for a core.
unit_groups() {
  tail --pid="$checks_pid" -f /dev/null
  local started=$SECONDS me=$BASHPID
  renice -n 19 -p "$me" > /dev/null
  npx ava "$file_times" --timeout=10m dist/test/unit-groups/unit-tests-*.js
  local status=$?
  echo "test: unit groups at nice 19 took $((SECONDS - started)) s (CPU $(children_cpu "$me") s)"
  return "$status"
}

# The files in test/background-files.txt: each one's time is a tool it starts (testssl), so they run
# beside the pass from its start, in an ava run of their own, instead of holding one of the pass's
# two places for minutes. At the usual priority: testssl's handshakes must reach the servers within
# their 10 s idle timeout. The inactivity timeout is raised because the machine is loaded meanwhile.
background_files() {
  local started=$SECONDS me=$BASHPID
  npx ava "$file_times" --timeout=15m "${background[@]}"
  local status=$?
  echo "test: background files took $((SECONDS - started)) s (CPU $(children_cpu "$me") s)"
  return "$status"
}

checks > .cache/checks-output.txt 2>&1 &
checks_pid=$!
if [ "$#" -eq 0 ]; then
  unit_groups > .cache/unit-groups-output.txt 2>&1 &
  unit_groups_pid=$!
  background_files > .cache/background-output.txt 2>&1 &
  background_pid=$!
fi

# Files run side by side (package.json's ava.concurrency): each owns its ports, temp dirs and daemons.
# Those in test/serial-files.txt measure what others running beside them would change: they run after,
# one at a time, once the checks have ended. Those in test/first-files.txt start first: the files that
# hold a place longest, so that none is left running alone at the pass's end, and so that what mostly
# waits overlaps the checks, which use what it leaves idle. Arguments (files, --match) run as given,
# in one pass.
ava_started=$SECONDS
ava_cpu_before=$(children_cpu $$)
load "at the first pass's start"
if [ "$#" -gt 0 ]; then
  npx ava "$file_times" "$@" 2>&1 | tee .cache/ava-output.txt
  status=${PIPESTATUS[0]}
  wait "$checks_pid"
  checks_status=$?
else
  # ava starts the files in the order given; a file is given once (awk keeps its first place).
  mapfile -t side_by_side < <({ echo "$first_list"; find dist/test -name '*.test.js' | sort; } | awk '!seen[$0]++' | grep -vxF -f test/serial-files.txt -f test/background-files.txt -f .cache/shared-unit-files.txt)
  # One Chromium for the pass's browser files (test/helpers/browser-server.ts): a launch in each
  # file cost about a second of CPU. It ends when its standard input closes or at SIGTERM, after the
  # pass: the serial pass's files launch their own, as a file run alone does.
  rm -f .cache/browser-cpu.txt
  coproc browser_server { exec node dist/test/helpers/browser-server.js .cache/browser-cpu.txt 2> .cache/browser-server-errors.txt; }
  browser_server_pid=$browser_server_PID
  if read -r -t 60 -u "${browser_server[0]}" endpoint && [[ $endpoint == ws://* ]]; then
    export OUTPOST_TEST_BROWSER=$endpoint
  else
    echo "test: the shared browser did not start (.cache/browser-server-errors.txt): each browser file launches its own"
  fi
  npx ava "$file_times" "${side_by_side[@]}" 2>&1 | tee .cache/ava-output.txt
  status=${PIPESTATUS[0]}
  unset OUTPOST_TEST_BROWSER
  kill -TERM "$browser_server_pid" 2> /dev/null
  wait "$browser_server_pid" 2> /dev/null
  load "at its end"
  echo "test: side-by-side pass took $((SECONDS - ava_started)) s (CPU $(($(children_cpu $$) - ava_cpu_before)) s, with that of the checks, the unit groups and the background files that ended beside it: bash reaps them as they end)"
  # Playwright starts Chromium detached, so its processes (the renderers above all) are not in that figure.
  if [ -s .cache/browser-cpu.txt ]; then echo "test: the shared browser used $(cat .cache/browser-cpu.txt) CPU s beside it, not counted above"; fi
  wait "$checks_pid"
  checks_status=$?
  wait "$unit_groups_pid"
  unit_groups_status=$?
  tee -a .cache/ava-output.txt < .cache/unit-groups-output.txt
  if [ "$status" -eq 0 ]; then status=$unit_groups_status; fi
  wait "$background_pid"
  background_status=$?
  tee -a .cache/ava-output.txt < .cache/background-output.txt
  if [ "$status" -eq 0 ]; then status=$background_status; fi
  serial_started=$SECONDS
  serial_cpu_before=$(children_cpu $$)
  npx ava "$file_times" --concurrency 1 "${serial[@]}" 2>&1 | tee -a .cache/ava-output.txt
  serial_status=${PIPESTATUS[0]}
  load "at the serial pass's end"
  echo "test: serial pass took $((SECONDS - serial_started)) s (CPU $(($(children_cpu $$) - serial_cpu_before)) s)"
  if [ "$status" -eq 0 ]; then status=$serial_status; fi
fi
cat .cache/checks-output.txt
# Where the time went, file by file: the files that held a place in the pass longest, and those that
# used the most CPU (the worker's own + the processes it waited for: outposts, daemons, Chromium).
if [ -s "$OUTPOST_TEST_FILE_TIMES" ]; then
  echo "test: the longest files (wall s, CPU s of the worker + of its children):"
  sort -k2 -rn "$OUTPOST_TEST_FILE_TIMES" | head -12 | awk '{ printf "  %s %s s, CPU %s + %s s\n", $1, $2, $3, $4 }'
  echo "test: the files using most CPU:"
  awk '{ print $3 + $4, $1, $2 }' "$OUTPOST_TEST_FILE_TIMES" | sort -rn | head -12 | awk '{ printf "  %s CPU %s s (wall %s s)\n", $2, $1, $3 }'
  awk '{ wall += $2; cpu += $3 + $4 } END { printf "test: %d files, %d s of wall time in all, CPU %d s\n", NR, wall, cpu }' "$OUTPOST_TEST_FILE_TIMES"
fi
# One line a test in ava's report: ✔ passed, ✘ failed; ava's summary adds what no such line shows
# (uncaught exceptions, unhandled rejections), and skipped or todo tests count as failed here. A failed
# check (lint, type-check) counts as one failure.
passed=$(grep -cE '^\s+✔' .cache/ava-output.txt)
failed=$(( $(grep -cE '^\s+✘' .cache/ava-output.txt) + $(grep -Eo '^ +[0-9]+ (uncaught exceptions?|unhandled rejections?|tests? skipped|tests? todo)' .cache/ava-output.txt | awk '{ sum += $1 } END { print sum + 0 }') ))
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
if [ "$checks_status" -ne 0 ]; then
  failed=$((failed + 1))
  if [ "$status" -eq 0 ]; then status=$checks_status; fi
fi
# The failed tests again at the end, where a reader of the last lines (CI shows its tail) finds them.
if [ "$failed" -gt 0 ]; then
  echo "test: what failed:"
  grep -hE '^\s+✘|^ +[0-9]+ (uncaught exceptions?|unhandled rejections?|tests? skipped|tests? todo)|^test: .*(failed|not formatted)' .cache/ava-output.txt .cache/checks-output.txt 2> /dev/null | head -20
fi
echo "$passed passed, $failed failed"
exit "$status"
