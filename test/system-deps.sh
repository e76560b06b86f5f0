#!/usr/bin/env bash
# Installs the Debian packages a job needs: `test` for the suite, `bench` for the benchmarks.
# As root, missing packages are installed with apt-get; otherwise the missing ones are listed and the
# script fails. One script for CI and for people.
set -euo pipefail

declare -A packages=(
  # ss and taskset (hostwatch ground truth), python3 (interpreter workers), chromium (page tests), iperf3 (speed test ground truth).
  [test]="iproute2 util-linux python3 chromium iperf3"
  [bench]="wrk glances python3-bottle iperf3 curl"
)

wanted=()
for group in "$@"; do
  if [ -z "${packages[$group]+set}" ]; then
    echo "system-deps: unknown group '$group' (known: ${!packages[*]})" >&2
    exit 2
  fi
  for name in ${packages[$group]}; do wanted+=("$name"); done
done

missing=()
for name in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -q 'install ok installed' || missing+=("$name")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "system-deps: missing Debian packages: ${missing[*]}; install them with: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "system-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
