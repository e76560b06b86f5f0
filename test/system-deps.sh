#!/usr/bin/env bash
# Installs the Debian packages a job needs: `test` for the suite, `bench` for the benchmarks.
# As root, missing packages are installed with apt-get; otherwise the missing ones are listed and the
# script fails. One script for CI and for people.
set -euo pipefail

declare -A packages=(
  # ss and taskset (hostwatch ground truth), python3 (interpreter workers), chromium (page tests), iperf3 (speed test ground truth).
  [test]="iproute2 util-linux python3 chromium iperf3"
  [bench]="wrk glances python3-bottle iperf3 curl python3"
)
# pebble (test ACME CA), PowerDNS with its sqlite3 backend (authoritative DNS + HTTP API) and sqlite3 to
# make its database, dig and openssl (certhub ground truth).
packages[test]+=" pebble pdns-server pdns-backend-sqlite3 sqlite3 dnsutils openssl"
# The checks users trust: prometheus (promtool check metrics and rules, a real scrape), testssl.sh
# (the TLS policy), systemd (systemd-analyze verify on the units; not PID 1 here) and curl (the
# the documents' and the demo's commands as a user types them).
packages[test]+=" prometheus testssl.sh systemd curl"
# nginx, haproxy and apache2: the servers certhub-agent fetch feeds (the manual's examples, run for real).
packages[test]+=" nginx haproxy apache2"
# PostgreSQL (certhub's shared store for several nodes; each test makes its own cluster with initdb).
packages[test]+=" postgresql"
# lego (the certhub issuance anchor).
packages[bench]+=" lego"
# nginx (the agent-proxy anchor).
packages[bench]+=" nginx"
# Packages whose install starts a system daemon, and its service name. The tests start their own
# copies on free loopback ports; a system PowerDNS would hold port 53 and must never run.
declare -A services=(
  [pdns-server]=pdns
  [prometheus]=prometheus
  [nginx]=nginx
  [haproxy]=haproxy
  [apache2]=apache2
  [glances]=glances
  [postgresql]=postgresql
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
# policy-rc.d exit 101 tells the packages' scripts not to start their services (Debian's mechanism,
# invoke-rc.d(8)); a fresh container may not have one, so one is put in place for this install.
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
  chmod 755 /usr/sbin/policy-rc.d
  trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
apt-get install -y -qq --no-install-recommends "${missing[@]}"
for name in "${missing[@]}"; do
  service=${services[$name]:-}
  [ -n "$service" ] || continue
  # Not started at boot either (Debian 12 ships pdns as a systemd unit only; disable works offline).
  if command -v systemctl >/dev/null; then
    if [ -d /run/systemd/system ]; then systemctl disable --now "$service" >/dev/null 2>&1 || true
    else systemctl disable "$service" >/dev/null 2>&1 || true; fi
  fi
done
